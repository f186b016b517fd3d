//! Decoded waveform signals: what a unit's captured port words mean, as
//! named signals a waveform viewer shows next to the raw ports.
//!
//! A waveform of a lock-step run holds every port as captured, in three
//! groups ([`Group`]): the inputs and both sides' outputs. Some of what an
//! engineer looks for is not a port of its own: one lane of a 256-bit
//! in-range mask, the `num_records` field of a 128-bit V#, the LDS bank a
//! lane's address falls in, the instruction in flight. A [`Signal`]
//! describes one such value, and a unit's [`Decoder`] computes the ones that
//! need its model's knowledge (the V# layout of a profile, the bank
//! mapping, the `s_waitcnt` encoding) from the captured words of one cycle.
//!
//! Decoding runs only when a waveform is written, frame by frame, never in
//! the lock-step loop. Each unit's decoder lives next to its port table
//! (`ta::decoded`, `lds::decoded`, `waitcnt::decoded`); the waveform writers
//! (crate `gpucosim-waves`) know nothing of the units.

/// Which buffer of a captured cycle a value is read from, and the scope
/// (under `tb`) its waveform variables are declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// The inputs (scope `tb.in`).
    In,
    /// The model's outputs (scope `tb.model`).
    Model,
    /// The RTL's outputs (scope `tb.rtl`).
    Rtl,
}

impl Group {
    /// The scope under `tb` holding the group.
    pub fn scope(self) -> &'static str {
        match self {
            Group::In => "in",
            Group::Model => "model",
            Group::Rtl => "rtl",
        }
    }
}

/// How a decoded signal is declared and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A bit vector of this many bits (1 to 64; a `wire`), shown in binary
    /// when it is one bit, in hex otherwise.
    Bits(u32),
    /// An unsigned number of this many bits (1 to 64; an `integer`), shown
    /// in decimal.
    Int(u32),
    /// Text (a VCD `string` variable, FST's variable-length type).
    Text,
}

impl Kind {
    /// The width in bits (0 for text).
    pub fn width(self) -> u32 {
        match self {
            Kind::Bits(w) | Kind::Int(w) => w,
            Kind::Text => 0,
        }
    }
}

/// Where a decoded signal's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Bit `bit` of port `port`, in the buffer of the signal's group: one
    /// lane (bank, wave, …) of a mask, read straight from the captured words.
    Bit {
        /// The port.
        port: &'static str,
        /// The bit.
        bit: u32,
    },
    /// Entry `n` of the values [`Decoder::decode`] writes for a frame.
    Computed(usize),
}

/// One decoded signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// The group: the scope it is declared in. A computed signal may read
    /// any buffer of the frame whatever its group (an instruction accepted
    /// when the model says so is an input's).
    pub group: Group,
    /// The scopes below the group's (`["lane_inrange_o", "lane32"]`): the
    /// signal's path is `tb.<group>.<scope…>.<name>`.
    pub scope: Vec<String>,
    /// The name in its scope (`dword0`, `num_records`).
    pub name: String,
    /// How it is declared.
    pub kind: Kind,
    /// Where its value comes from.
    pub source: Source,
    /// The lane, bank, wave, … it concerns (`("lane", 32)`), if one: a
    /// viewer session shows it next to that item's diverging signals.
    pub item: Option<(&'static str, u32)>,
}

impl Signal {
    /// A signal computed by a decoder: entry `n` of its values.
    pub fn computed(group: Group, scope: &[&str], name: &str, kind: Kind, n: usize) -> Signal {
        Signal {
            group,
            scope: scope.iter().map(|s| s.to_string()).collect(),
            name: name.to_string(),
            kind,
            source: Source::Computed(n),
            item: None,
        }
    }

    /// The signal concerning `item` (a lane, a wave, …).
    pub fn of_item(mut self, noun: &'static str, i: u32) -> Signal {
        self.item = Some((noun, i));
        self
    }

    /// Its path below `tb`'s group scope, dot-separated:
    /// `lane_inrange_o.lane32.dword0`.
    pub fn local_path(&self) -> String {
        let mut s = String::new();
        for p in &self.scope {
            s.push_str(p);
            s.push('.');
        }
        s.push_str(&self.name);
        s
    }

    /// Its full path: `tb.model.lane_inrange_o.lane32.dword0`.
    pub fn path(&self) -> String {
        format!("tb.{}.{}", self.group.scope(), self.local_path())
    }
}

/// A computed value of one frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Value {
    /// A number (its low bits, as many as the signal's width).
    Num(u64),
    /// A text. Writers show an empty one as `-`.
    Text(String),
    /// Not known: `x` for a number (0 for a one-bit signal), `?` for a text.
    Unknown,
    /// The value of the frame before, held (the instruction accepted in an
    /// earlier cycle); [`Value::Unknown`] in the first frame written.
    #[default]
    Keep,
}

/// A unit's decoder: the signals it computes and their values per frame.
/// One per waveform being written (it may keep scratch state);
/// [`Decoder::fresh`] makes another.
pub trait Decoder: Send {
    /// The computed signals, each [`Source::Computed`] with its index in
    /// this list.
    fn signals(&self) -> Vec<Signal>;

    /// Writes the values of one frame (its packed inputs and both sides'
    /// packed outputs) into `out`, one per signal of [`Decoder::signals`]
    /// (`out` holds the previous frame's values; [`Value::Keep`] holds
    /// one).
    fn decode(&mut self, inputs: &[u32], model: &[u32], rtl: &[u32], out: &mut [Value]);

    /// A new decoder of the same unit and profile.
    fn fresh(&self) -> Box<dyn Decoder>;
}

/// Sets `out` to the text `s` (reusing its buffer when it holds one).
pub fn set_text(out: &mut Value, s: std::fmt::Arguments<'_>) {
    use std::fmt::Write as _;
    match out {
        Value::Text(t) => {
            t.clear();
            let _ = t.write_fmt(s);
        }
        _ => *out = Value::Text(s.to_string()),
    }
}
