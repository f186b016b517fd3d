//! The `ta` unit's decoded waveform signals ([`crate::decode`]): the
//! instruction in flight as text (`tb.in.instr`) and the fields of its V#
//! (`tb.in.vsharp.*`), decoded with the profile's V# layout
//! ([`super::params::TaParams::vsharp`]) and [`Vsharp::decode`].
//!
//! Both are taken in the cycle the model accepts an instruction
//! (`req_valid_i` and the model's `req_ready_o`) and held until the next:
//! the request ports carry the *next* instruction (or zeros) while one is
//! in flight, so at a divergence these show the instruction whose lanes
//! diverge. Before the first acceptance in a waveform they are unknown.

use super::cycle::read_instr;
use super::isa::{gfx11_format, Instr, Kind as IKind, Op, VsField, Vsharp, ALIGN_MODES, GFX9_DFMT};
use super::params::{FormatEncoding, TaParams};
use super::ports::ta_ports as p;
use crate::decode::{set_text, Decoder, Group, Kind, Signal, Value};
use crate::profile::Profile;
use std::fmt::Write as _;

/// What one computed signal shows.
#[derive(Debug, Clone, Copy)]
enum What {
    /// The instruction as text.
    Instr,
    /// A field of the V#, as the layout holds it.
    Field(VsField),
    /// The swizzle element size in bytes (0: no swizzle).
    SwizzleBytes,
    /// The index stride in elements.
    IndexStrideElems,
    /// The element size of the V#'s format in bytes (0: invalid).
    FormatBytes,
    /// The V#'s format by name.
    FormatName,
}

/// The `ta` decoder of one profile.
pub struct TaDecoder {
    profile: Profile,
    what: Vec<What>,
    instr: Box<Instr>,
}

impl TaDecoder {
    /// The decoder for `profile`.
    pub fn new(profile: Profile) -> TaDecoder {
        let layout = TaParams::of(profile).vsharp;
        let mut what = vec![What::Instr];
        what.extend(
            VsField::ALL
                .iter()
                .filter(|f| layout.width(**f) > 0)
                .map(|f| What::Field(*f)),
        );
        what.extend([
            What::SwizzleBytes,
            What::IndexStrideElems,
            What::FormatBytes,
            What::FormatName,
        ]);
        TaDecoder {
            profile,
            what,
            instr: Box::default(),
        }
    }
}

/// The name of a format code: gfx9 `dfmt` (`32_32`), gfx11 the unified
/// format (`32_32_FLOAT`); `INVALID` for a code without an entry.
/// The V# `v` as a line of named fields, as reports show it beside the
/// hex: every field the profile's layout has, in bit order, with the
/// format's name (`base 0x2000 stride 0 ... dfmt 4 (32) ...`). Fields are
/// the layout's raw values; the derived sizes follow (`swizzle_bytes`,
/// `index_stride_elems`).
pub fn vsharp_text(profile: Profile, v: u128) -> String {
    let layout = TaParams::of(profile).vsharp;
    let vs = Vsharp::decode(profile, v);
    let mut parts = Vec::new();
    for f in VsField::ALL.iter().filter(|f| layout.width(**f) > 0) {
        let x = layout.get(v, *f);
        let text = match f {
            VsField::Base => format!("base {x:#x}"),
            VsField::Format => {
                format!(
                    "{} {x} ({})",
                    f.name(profile),
                    format_name(profile, x as u32)
                )
            }
            _ => format!("{} {x}", f.name(profile)),
        };
        parts.push(text);
    }
    if let Some(es) = vs.swizzle_es {
        parts.push(format!("swizzle_bytes {es}"));
    }
    parts.push(format!("index_stride_elems {}", vs.index_stride));
    parts.join(" ")
}

fn format_name(profile: Profile, code: u32) -> String {
    match TaParams::of(profile).format {
        FormatEncoding::DfmtNfmt => GFX9_DFMT[(code & 15) as usize].name().to_string(),
        FormatEncoding::Unified => match gfx11_format(code) {
            Some((d, n)) => format!("{}_{}", d.name(), n.name()),
            None => "INVALID".to_string(),
        },
    }
}

/// The instruction as one line: `buffer_load_dwordx2 offen offset:12
/// soffset:0x10 exec:0xffff`, `buffer_atomic_rtn 4B …`,
/// `tbuffer_store_format dfmt:32 nfmt:4 …`.
pub fn instr_text(profile: Profile, i: &Instr) -> String {
    let op = match i.op {
        Op::Load => "load",
        Op::Store => "store",
        Op::Atomic => "atomic",
        Op::AtomicRet => "atomic_rtn",
    };
    let mut s = String::new();
    // LLVM's names of the non-format loads and stores by size.
    let sized = match (i.op, i.size) {
        (Op::Load, 1) => Some("load_ubyte"),
        (Op::Load, 2) => Some("load_ushort"),
        (Op::Store, 1) => Some("store_byte"),
        (Op::Store, 2) => Some("store_short"),
        (Op::Load, 4) => Some("load_dword"),
        (Op::Store, 4) => Some("store_dword"),
        (Op::Load, 8) => Some("load_dwordx2"),
        (Op::Store, 8) => Some("store_dwordx2"),
        (Op::Load, 12) => Some("load_dwordx3"),
        (Op::Store, 12) => Some("store_dwordx3"),
        (Op::Load, 16) => Some("load_dwordx4"),
        (Op::Store, 16) => Some("store_dwordx4"),
        _ => None,
    };
    let _ = match i.kind {
        IKind::Mubuf => match sized {
            Some(name) => write!(s, "buffer_{name}"),
            None => write!(s, "buffer_{op} {}B", i.size),
        },
        IKind::MubufFormat => write!(s, "buffer_{op}_format"),
        IKind::Mtbuf => match TaParams::of(profile).format {
            FormatEncoding::DfmtNfmt => write!(
                s,
                "tbuffer_{op}_format dfmt:{} nfmt:{}",
                format_name(profile, i.fmt & 15),
                i.fmt >> 4 & 7
            ),
            FormatEncoding::Unified => write!(
                s,
                "tbuffer_{op}_format format:{}",
                format_name(profile, i.fmt & 127)
            ),
        },
    };
    if i.offen {
        s.push_str(" offen");
    }
    if i.idxen {
        s.push_str(" idxen");
    }
    if i.inst_offset != 0 {
        let _ = write!(s, " offset:{}", i.inst_offset);
    }
    if i.soffset != 0 {
        let _ = write!(s, " soffset:{:#x}", i.soffset);
    }
    if i.align_mode != 0 {
        let _ = write!(s, " align:{}", ALIGN_MODES[(i.align_mode & 3) as usize]);
    }
    if profile.wave32() && !i.wave64 {
        s.push_str(" wave32");
    }
    let _ = write!(s, " exec:{:#x}", i.exec);
    s
}

impl Decoder for TaDecoder {
    fn signals(&self) -> Vec<Signal> {
        let layout = TaParams::of(self.profile).vsharp;
        self.what
            .iter()
            .enumerate()
            .map(|(n, w)| {
                let v = |name: &str, kind| Signal::computed(Group::In, &["vsharp"], name, kind, n);
                match w {
                    What::Instr => Signal::computed(Group::In, &[], "instr", Kind::Text, n),
                    What::Field(f) => {
                        let width = layout.width(*f);
                        let kind = match f {
                            // Addresses, sizes in bytes, bit fields: hex.
                            VsField::Base | VsField::NumRecords | VsField::DstSel => {
                                Kind::Bits(width)
                            }
                            _ if width == 1 => Kind::Bits(1),
                            _ => Kind::Int(width),
                        };
                        v(f.name(self.profile), kind)
                    }
                    What::SwizzleBytes => v("swizzle_bytes", Kind::Int(5)),
                    What::IndexStrideElems => v("index_stride_elems", Kind::Int(7)),
                    What::FormatBytes => v("format_bytes", Kind::Int(5)),
                    What::FormatName => v("format_name", Kind::Text),
                }
            })
            .collect()
    }

    fn decode(&mut self, inputs: &[u32], model: &[u32], _rtl: &[u32], out: &mut [Value]) {
        let accepted =
            p::rst_ni.bit(inputs) && p::req_valid_i.bit(inputs) && p::req_ready_o.bit(model);
        if !accepted {
            out.iter_mut().for_each(|v| *v = Value::Keep);
            return;
        }
        let profile = self.profile;
        read_instr(inputs, &mut self.instr);
        let i = &self.instr;
        let layout = TaParams::of(profile).vsharp;
        let vs = Vsharp::decode(profile, i.vsharp);
        for (w, o) in self.what.iter().zip(out.iter_mut()) {
            *o = match w {
                What::Instr => Value::Text(instr_text(profile, i)),
                What::Field(f) => Value::Num(match f {
                    // The decoder's values where it has them, the layout's
                    // field otherwise.
                    VsField::Base => vs.base,
                    VsField::Stride => vs.stride.into(),
                    VsField::NumRecords => vs.num_records.into(),
                    VsField::AddTid => vs.add_tid.into(),
                    VsField::OobSelect => vs.oob_select.into(),
                    VsField::Type => vs.rtype.into(),
                    _ => layout.get(i.vsharp, *f),
                }),
                What::SwizzleBytes => Value::Num(vs.swizzle_es.unwrap_or(0).into()),
                What::IndexStrideElems => Value::Num(vs.index_stride.into()),
                What::FormatBytes => Value::Num(vs.format_es.unwrap_or(0).into()),
                What::FormatName => {
                    let code = layout.get(i.vsharp, VsField::Format) as u32;
                    set_text(o, format_args!("{}", format_name(profile, code)));
                    continue;
                }
            };
        }
    }

    fn fresh(&self) -> Box<dyn Decoder> {
        Box::new(TaDecoder::new(self.profile))
    }
}
