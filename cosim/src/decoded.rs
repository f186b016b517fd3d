//! The waveform layout of a unit: its ports, the lanes (banks, waves,
//! channels) of its masks as one-bit signals of their own, and its
//! decoder's signals ([`Testbench::decoder`]).
//!
//! A mask is a port of one element wider than a bit whose bits
//! [`Testbench::index`] says stand for lanes, lane-dwords, banks, waves or
//! return channels. Bit `b` of mask `port` becomes, in the port's group
//! (`tb.in`, or `tb.model` and `tb.rtl` for an output):
//!
//! | index | signal |
//! |---|---|
//! | lane | `port.lane<b>` |
//! | lane-dword | `port.lane<b/4>.dword<b%4>` |
//! | bank, wave, channel | `port.bank<b>`, `port.wave<b>`, `port.channel<b>` |
//!
//! Byte masks (a cache line's byte enables) stay whole. Nothing here runs
//! per simulated cycle: the writers compute the signals as they write a
//! waveform.

use crate::testbench::{Index, Testbench};
use gpucosim_model::decode::{Group, Kind, Signal, Source};
use gpucosim_model::ports::Dir;
use gpucosim_model::Profile;
use gpucosim_waves::Layout;

/// The signal showing bit `bit` of mask `port` (of index `ix`) in `group`.
fn mask_bit(group: Group, port: &'static str, ix: Index, bit: u32) -> Signal {
    let noun = ix.noun(false);
    let (scope, name, item) = match ix {
        Index::LaneDword => (
            vec![port.to_string(), format!("lane{}", bit / 4)],
            format!("dword{}", bit % 4),
            bit / 4,
        ),
        _ => (vec![port.to_string()], format!("{noun}{bit}"), bit),
    };
    Signal {
        group,
        scope,
        name,
        kind: Kind::Bits(1),
        source: Source::Bit { port, bit },
        item: Some((noun, item)),
    }
}

/// The one-bit signals of the masks of `B`, per [`Testbench::index`].
#[doc(hidden)]
pub fn mask_signals<B: Testbench>() -> Vec<Signal> {
    let mut v = Vec::new();
    for d in B::table().ports {
        let Some(ix) = B::index(d.name) else {
            continue;
        };
        if d.elems != 1 || d.elem_width < 2 || ix == Index::Byte {
            continue;
        }
        let groups: &[Group] = match d.dir {
            Dir::In => &[Group::In],
            Dir::Out => &[Group::Model, Group::Rtl],
        };
        for &g in groups {
            v.extend((0..d.width()).map(|b| mask_bit(g, d.name, ix, b)));
        }
    }
    v
}

/// The waveform layout of `B` on `profile`: its ports, the one-bit
/// signals of its masks ([`mask_signals`]) and its decoder's signals. A
/// part that does not fit the layout (a bug of the unit's tables, caught
/// by the tests) is left out, with a warning.
#[doc(hidden)]
pub fn layout<B: Testbench>(profile: Profile) -> Layout {
    let plain = Layout::new(B::table());
    let with_masks = match plain.clone().with_signals(mask_signals::<B>()) {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!("{}: the lanes of masks are left out: {e}", B::UNIT);
            plain
        }
    };
    match B::decoder(profile) {
        Some(d) => match with_masks.clone().with_decoder(d) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!("{}: the decoded signals are left out: {e}", B::UNIT);
                with_masks
            }
        },
        None => with_masks,
    }
}

/// What the elements (or a mask's bits) of `B`'s ports stand for, as a
/// viewer session takes it: `(port, noun, per)`, element `e` being item
/// `e / per` (`("lane_inrange_o", "lane", 4)`).
#[doc(hidden)]
pub fn items<B: Testbench>() -> Vec<(String, &'static str, u32)> {
    B::table()
        .ports
        .iter()
        .filter_map(|d| {
            let ix = B::index(d.name)?;
            let per = if ix == Index::LaneDword { 4 } else { 1 };
            Some((d.name.to_string(), ix.noun(false), per))
        })
        .collect()
}
