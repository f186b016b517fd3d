//! Operands as the assembly writes them, read once per instruction before
//! the emulation runs: registers, constants, labels and modifiers.

/// SGPR file indices of the named scalar registers (the hardware's operand
/// codes, so that `s[106:107]` is VCC).
pub const VCC: u16 = 106;
/// `flat_scratch` (gfx9).
pub const FLAT_SCRATCH: u16 = 102;
/// `xnack_mask` (gfx9).
pub const XNACK_MASK: u16 = 104;
/// `m0`.
pub const M0: u16 = 124;
/// `exec`.
pub const EXEC: u16 = 126;
/// Size of the emulated SGPR file.
pub const NSGPR: usize = 128;

/// One operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opnd {
    /// `n` consecutive SGPRs from `first` (named registers included).
    S(u16, u8),
    /// `n` consecutive VGPRs from `first`.
    V(u16, u8),
    /// A constant (inline or literal), as a 64-bit value: integers as
    /// written (negative ones sign-extended), floats as their f32 bits
    /// (`f64: false`) — the 64-bit bits are in `Imm64`.
    Imm(u64),
    /// A float constant: its f32 and f64 bits.
    Float(u32, u64),
    /// `scc` as a source.
    Scc,
    /// `null` (gfx11): reads 0, writes are dropped.
    Null,
    /// `off` (no address register).
    Off,
}

impl Opnd {
    /// Registers of the operand (0 for constants).
    pub fn count(self) -> u8 {
        match self {
            Opnd::S(_, n) | Opnd::V(_, n) => n,
            _ => 0,
        }
    }
}

/// Modifiers after the operands (`offset:16`, `offen`, `glc`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mods {
    /// `offset:N`.
    pub offset: Option<i64>,
    /// `offset0:N`.
    pub offset0: Option<u32>,
    /// `offset1:N`.
    pub offset1: Option<u32>,
    /// `offen`.
    pub offen: bool,
    /// `idxen`.
    pub idxen: bool,
    /// `glc` / `sc0` (return the pre-op value for atomics).
    pub glc: bool,
    /// `format:…`, as written inside.
    pub format: Option<String>,
    /// `neg` on operand i (bit i, destination operands counted): `-v1`,
    /// `neg(v1)`.
    pub neg: u16,
    /// `abs` on operand i: `|v1|`, `abs(v1)`.
    pub abs: u16,
    /// `clamp`.
    pub clamp: bool,
    /// The output modifier: 1 `mul:2`, 2 `mul:4`, -1 `div:2`, 0 none.
    pub omod: i8,
    /// `sext` on operand i (SDWA integer sources): `sext(v1)`.
    pub sext: u16,
    /// The SDWA selections, for an `_sdwa` instruction.
    pub sdwa: Option<Sdwa>,
    /// A modifier the emulator does not implement (`gds`, `tfe`, `lds`,
    /// `op_sel`, …).
    pub unsupported: Option<String>,
    /// `clamp` on an integer add or subtract saturates as a signed value
    /// (`v_add_i32`, `v_sub_nc_i16`, …) rather than an unsigned one.
    pub clamp_signed: bool,
    /// `op_sel:[…]`: bit i selects the high half of source i, and the bit
    /// after the sources writes the destination's high half.
    pub op_sel: u8,
    /// How many entries `op_sel` had (0: none).
    pub op_sel_n: u8,
    /// Packed operations' `op_sel_hi:[…]` (bit i: the high result reads
    /// source i's high half), and how many entries it had (0: none, which
    /// means all high halves).
    pub op_sel_hi: u8,
    pub op_sel_hi_n: u8,
    /// Packed operations' `neg_lo:[…]` and `neg_hi:[…]`, per source.
    pub neg_lo: u8,
    pub neg_hi: u8,
    /// A DPP instruction's lane movement of source 0 and its masks.
    pub dpp: Option<Dpp>,
}

/// Where DPP reads source 0 from, per lane (rows of 16 lanes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DppCtrl {
    /// `quad_perm:[a,b,c,d]`: lane `4q + i` reads `4q + sel[i]`.
    QuadPerm([u8; 4]),
    /// `row_shl:n`: lane l reads l + n within its row.
    RowShl(u8),
    /// `row_shr:n`.
    RowShr(u8),
    /// `row_ror:n`: rotates right within the row.
    RowRor(u8),
    /// gfx9 `wave_shl:1`, `wave_rol:1`, `wave_shr:1`, `wave_ror:1`.
    WaveShl,
    WaveRol,
    WaveShr,
    WaveRor,
    /// `row_mirror`: lane i of a row reads 15 - i.
    RowMirror,
    /// `row_half_mirror`: within each half row.
    RowHalfMirror,
    /// gfx9 `row_bcast:15`: rows 1–3 read the last lane of the row before.
    RowBcast15,
    /// gfx9 `row_bcast:31`: rows 2–3 read lane 31.
    RowBcast31,
    /// gfx10+ `row_share:n`: every lane of a row reads its lane n.
    RowShare(u8),
    /// gfx10+ `row_xmask:n`: lane i of a row reads i ^ n.
    RowXmask(u8),
    /// gfx10+ `dpp8:[s0,…,s7]`: lane `8g + i` reads `8g + sel[i]`.
    Dpp8([u8; 8]),
}

/// A DPP instruction's modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dpp {
    pub ctrl: DppCtrl,
    /// Rows (bit r: lanes 16r..16r+15) written.
    pub row_mask: u8,
    /// Banks (bit b: lanes with (l / 4) % 4 == b) written.
    pub bank_mask: u8,
    /// An invalid source lane reads 0 (else the lane is not written).
    pub bound_ctrl: bool,
    /// `fi:1`: an inactive source lane is read anyway.
    pub fetch_inactive: bool,
}

impl Dpp {
    /// The source lane of lane `l` (`lanes` 32 or 64), if any.
    pub fn source(&self, l: usize, lanes: usize) -> Option<usize> {
        let (row, i) = (l & !15, l & 15);
        let s = match self.ctrl {
            DppCtrl::QuadPerm(sel) => Some((l & !3) | usize::from(sel[l & 3])),
            DppCtrl::RowShl(n) => (i + usize::from(n) < 16).then(|| l + usize::from(n)),
            DppCtrl::RowShr(n) => (i >= usize::from(n)).then(|| l - usize::from(n)),
            DppCtrl::RowRor(n) => Some(row | ((i + 16 - usize::from(n)) % 16)),
            DppCtrl::WaveShl => (l + 1 < lanes).then_some(l + 1),
            DppCtrl::WaveRol => Some((l + 1) % lanes),
            DppCtrl::WaveShr => l.checked_sub(1),
            DppCtrl::WaveRor => Some((l + lanes - 1) % lanes),
            DppCtrl::RowMirror => Some(row | (15 - i)),
            DppCtrl::RowHalfMirror => Some((l & !7) | (7 - (l & 7))),
            DppCtrl::RowBcast15 => (l >= 16).then(|| row - 1),
            DppCtrl::RowBcast31 => (l >= 32).then_some(31),
            DppCtrl::RowShare(n) => Some(row | usize::from(n)),
            DppCtrl::RowXmask(n) => Some(row | (i ^ usize::from(n))),
            DppCtrl::Dpp8(sel) => Some((l & !7) | usize::from(sel[l & 7])),
        }?;
        (s < lanes).then_some(s)
    }

    /// Whether lane `l` may be written (its row and bank are enabled).
    pub fn writes(&self, l: usize) -> bool {
        self.row_mask >> (l / 16) & 1 != 0 && self.bank_mask >> ((l / 4) % 4) & 1 != 0
    }
}

/// Reads a DPP modifier word into `m`; `Ok(false)` when `w` is none.
fn read_dpp(w: &str, m: &mut Mods) -> Result<bool, String> {
    let list = |v: &str, n: usize| -> Result<Vec<u8>, String> {
        let inner = v
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| format!("`{w}` is not a list"))?;
        let out: Vec<u8> = inner
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<u8>()
                    .map_err(|_| format!("`{w}`: `{x}` is not a lane"))
            })
            .collect::<Result<_, _>>()?;
        if out.len() != n || out.iter().any(|&x| usize::from(x) >= n) {
            return Err(format!("`{w}` needs {n} lanes below {n}"));
        }
        Ok(out)
    };
    let num = |v: &str| -> Result<u32, String> {
        let v = v.trim();
        match v.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16),
            None => v.parse(),
        }
        .map_err(|_| format!("`{w}`: `{v}` is not a number"))
    };
    let d = m.dpp.get_or_insert(Dpp {
        ctrl: DppCtrl::QuadPerm([0, 1, 2, 3]),
        row_mask: 0xf,
        bank_mask: 0xf,
        bound_ctrl: false,
        fetch_inactive: false,
    });
    let (k, v) = w.split_once(':').unwrap_or((w, ""));
    let shift = |v: &str| -> Result<u8, String> {
        match num(v)? {
            n @ 1..=15 => Ok(n as u8),
            _ => Err(format!("`{w}` shifts by 1 to 15")),
        }
    };
    // A lane of a row, or a 4-bit mask.
    let nibble = |v: &str| -> Result<u8, String> {
        match num(v)? {
            n @ 0..=15 => Ok(n as u8),
            _ => Err(format!("`{w}` is 0 to 15")),
        }
    };
    d.ctrl = match k {
        "quad_perm" => {
            let l = list(v, 4)?;
            DppCtrl::QuadPerm([l[0], l[1], l[2], l[3]])
        }
        "dpp8" => {
            let l = list(v, 8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(&l);
            DppCtrl::Dpp8(a)
        }
        "row_shl" => DppCtrl::RowShl(shift(v)?),
        "row_shr" => DppCtrl::RowShr(shift(v)?),
        "row_ror" => DppCtrl::RowRor(shift(v)?),
        "wave_shl" => DppCtrl::WaveShl,
        "wave_rol" => DppCtrl::WaveRol,
        "wave_shr" => DppCtrl::WaveShr,
        "wave_ror" => DppCtrl::WaveRor,
        "row_mirror" => DppCtrl::RowMirror,
        "row_half_mirror" => DppCtrl::RowHalfMirror,
        "row_bcast" => match num(v)? {
            15 => DppCtrl::RowBcast15,
            31 => DppCtrl::RowBcast31,
            _ => return Err(format!("`{w}` is row_bcast:15 or row_bcast:31")),
        },
        "row_share" => DppCtrl::RowShare(nibble(v)?),
        "row_xmask" => DppCtrl::RowXmask(nibble(v)?),
        "row_mask" => {
            d.row_mask = nibble(v)?;
            return Ok(true);
        }
        "bank_mask" => {
            d.bank_mask = nibble(v)?;
            return Ok(true);
        }
        // LLVM writes the bit as `bound_ctrl:0` (older) or `bound_ctrl:1`.
        "bound_ctrl" => {
            d.bound_ctrl = true;
            return Ok(true);
        }
        "fi" => {
            d.fetch_inactive = match num(v)? {
                0 => false,
                1 => true,
                _ => return Err(format!("`{w}` is fi:0 or fi:1")),
            };
            return Ok(true);
        }
        _ => {
            if m.dpp.map(|d| d.ctrl) == Some(DppCtrl::QuadPerm([0, 1, 2, 3])) {
                m.dpp = None;
            }
            return Ok(false);
        }
    };
    Ok(true)
}

/// A field of a dword an SDWA instruction reads or writes: (bit offset,
/// bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sel(pub u8, pub u8);

impl Sel {
    /// The whole dword.
    pub const DWORD: Sel = Sel(0, 32);

    #[doc(hidden)]
    pub fn of(s: &str) -> Option<Sel> {
        Some(match s {
            "BYTE_0" => Sel(0, 8),
            "BYTE_1" => Sel(8, 8),
            "BYTE_2" => Sel(16, 8),
            "BYTE_3" => Sel(24, 8),
            "WORD_0" => Sel(0, 16),
            "WORD_1" => Sel(16, 16),
            "DWORD" => Sel::DWORD,
            _ => return None,
        })
    }

    /// The field of `v`, zero- or (`sext`) sign-extended.
    pub fn read(self, v: u32, sext: bool) -> u32 {
        if self.1 == 32 {
            return v;
        }
        let x = v >> self.0 & ((1u32 << self.1) - 1);
        if sext && x >> (self.1 - 1) & 1 != 0 {
            x | !((1u32 << self.1) - 1)
        } else {
            x
        }
    }
}

/// What to do with the destination's bits outside `dst_sel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unused {
    /// Zero (`UNUSED_PAD`).
    Pad,
    /// The field's sign (`UNUSED_SEXT`).
    Sext,
    /// The old value's (`UNUSED_PRESERVE`).
    Preserve,
}

/// An SDWA instruction's selections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sdwa {
    /// `src0_sel`, `src1_sel`.
    pub src: [Sel; 2],
    /// `dst_sel`.
    pub dst: Sel,
    /// `dst_unused`.
    pub unused: Unused,
}

impl Default for Sdwa {
    fn default() -> Self {
        Sdwa {
            src: [Sel::DWORD; 2],
            dst: Sel::DWORD,
            unused: Unused::Pad,
        }
    }
}

impl Sdwa {
    /// The destination's new value: `r`'s low `dst_sel` bits placed in
    /// the field, the rest as `dst_unused` says from the old value `old`.
    pub fn write(&self, old: u32, r: u32) -> u32 {
        let Sel(at, bits) = self.dst;
        if bits == 32 {
            return r;
        }
        let mask = ((1u32 << bits) - 1) << at;
        let field = r << at & mask;
        match self.unused {
            Unused::Preserve => old & !mask | field,
            Unused::Pad => field,
            Unused::Sext => {
                let sign = r >> (bits - 1) & 1 != 0;
                // The bits above the field copy its sign; those below are 0.
                let above = if sign { !0u32 << (at + bits) } else { 0 };
                field | if at + bits < 32 { above } else { 0 }
            }
        }
    }
}

/// An operand with its float source modifiers (`-v1`, `|v1|`, `-|v1|`,
/// `neg(v1)`, `abs(v1)`): the operand, neg, abs. A negative number is a
/// constant, not a modifier.
pub fn operand_with_mods(t: &str) -> Option<(Opnd, bool, bool)> {
    let t = t.trim();
    if let Some(o) = operand(t) {
        return Some((o, false, false));
    }
    if let Some(inner) = t.strip_prefix("neg(").and_then(|r| r.strip_suffix(')')) {
        let (o, n, a) = operand_with_mods(inner)?;
        return Some((o, !n, a));
    }
    if let Some(inner) = t.strip_prefix("sext(").and_then(|r| r.strip_suffix(')')) {
        // Recorded by the caller (`operand_mods`).
        let o = operand(inner)?;
        return Some((o, false, false));
    }
    if let Some(inner) = t.strip_prefix("abs(").and_then(|r| r.strip_suffix(')')) {
        let (o, n, _) = operand_with_mods(inner)?;
        return (!n).then_some((o, false, true));
    }
    if let Some(inner) = t.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        let o = operand(inner)?;
        return Some((o, false, true));
    }
    if let Some(rest) = t.strip_prefix('-') {
        let (o, n, a) = operand_with_mods(rest)?;
        return (!n).then_some((o, true, a));
    }
    None
}

/// Reads a register operand or constant. `None`: not one (a label, or
/// something unknown).
pub fn operand(t: &str) -> Option<Opnd> {
    let t = t.trim();
    let named = match t {
        "vcc" => Some(Opnd::S(VCC, 2)),
        "vcc_lo" => Some(Opnd::S(VCC, 1)),
        "vcc_hi" => Some(Opnd::S(VCC + 1, 1)),
        "exec" => Some(Opnd::S(EXEC, 2)),
        "exec_lo" => Some(Opnd::S(EXEC, 1)),
        "exec_hi" => Some(Opnd::S(EXEC + 1, 1)),
        "m0" => Some(Opnd::S(M0, 1)),
        "flat_scratch" => Some(Opnd::S(FLAT_SCRATCH, 2)),
        "flat_scratch_lo" => Some(Opnd::S(FLAT_SCRATCH, 1)),
        "flat_scratch_hi" => Some(Opnd::S(FLAT_SCRATCH + 1, 1)),
        "xnack_mask" => Some(Opnd::S(XNACK_MASK, 2)),
        "null" => Some(Opnd::Null),
        "off" => Some(Opnd::Off),
        "scc" | "src_scc" => Some(Opnd::Scc),
        _ => None,
    };
    if named.is_some() {
        return named;
    }
    if let Some(rest) = t.strip_prefix('s').or_else(|| t.strip_prefix('v')) {
        let vec = t.starts_with('v');
        // Registers past the file (256 VGPRs, the SGPR file) are not operands.
        let limit = if vec { 256 } else { NSGPR as u16 };
        let mk = |first: u16, n: u8| {
            let o = if vec {
                Opnd::V(first, n)
            } else {
                Opnd::S(first, n)
            };
            (first.saturating_add(u16::from(n)) <= limit).then_some(o)
        };
        if let Some(range) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (a, b) = range.split_once(':')?;
            let (a, b): (u16, u16) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            if b < a || b - a >= 16 {
                return None;
            }
            return mk(a, (b - a + 1) as u8);
        }
        if let Ok(n) = rest.parse::<u16>() {
            return mk(n, 1);
        }
    }
    constant(t)
}

/// An integer (decimal, `0x` hex, negative) or float constant.
pub fn constant(t: &str) -> Option<Opnd> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let int = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if body.bytes().all(|b| b.is_ascii_digit()) && !body.is_empty() {
        body.parse::<u64>().ok()
    } else {
        None
    };
    if let Some(v) = int {
        return Some(Opnd::Imm(if neg { v.wrapping_neg() } else { v }));
    }
    if body.contains('.') || body.contains('e') {
        let f: f64 = t.parse().ok()?;
        return Some(Opnd::Float((f as f32).to_bits(), f.to_bits()));
    }
    None
}

/// Splits an operand's text into the operand and the modifiers written
/// after it (`v1 offset1:2` → `v1`, `[offset1:2]`).
pub fn split_mods(t: &str) -> (&str, Vec<&str>) {
    // `format:[A, B]` holds spaces: split at whitespace outside brackets.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, None::<usize>);
    for (i, c) in t.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if let Some(s) = start.take() {
                parts.push(&t[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push(&t[s..]);
    }
    if parts.is_empty() {
        return ("", parts);
    }
    let first = parts.remove(0);
    (first, parts)
}

/// Whether a word is a modifier rather than an operand.
pub fn is_modifier(w: &str) -> bool {
    const BARE: &[&str] = &[
        "offen", "idxen", "glc", "slc", "dlc", "gds", "tfe", "lds", "lwe", "clamp", "sc0", "sc1",
        "nt", "addr64", "a16", "d16", "unorm", "nv",
    ];
    BARE.contains(&w)
        || [
            "offset:",
            "offset0:",
            "offset1:",
            "format:",
            "op_sel",
            "neg_lo",
            "neg_hi",
            "row_",
            "bank_mask",
            "bound_ctrl",
            "dpp",
            "quad_perm",
            "wave_",
            "fi:",
            "mul:",
            "div:",
            "dst_sel",
            "src0_sel",
            "src1_sel",
            "dst_unused",
            "wait_vdst",
            "wait_exp",
            "byte_sel",
        ]
        .iter()
        .any(|p| w.starts_with(p))
}

/// Reads modifiers into `m`.
pub fn read_mods(words: &[&str], m: &mut Mods) -> Result<(), String> {
    let num = |v: &str| -> Result<i64, String> {
        match constant(v) {
            Some(Opnd::Imm(x)) => Ok(x as i64),
            _ => Err(format!("`{v}` is not a number")),
        }
    };
    for &w in words {
        if let Some(v) = w.strip_prefix("offset:") {
            m.offset = Some(num(v)?);
        } else if let Some(v) = w.strip_prefix("offset0:") {
            m.offset0 = Some(num(v)? as u32);
        } else if let Some(v) = w.strip_prefix("offset1:") {
            m.offset1 = Some(num(v)? as u32);
        } else if let Some(v) = w.strip_prefix("format:") {
            m.format = Some(v.trim_matches(|c| c == '[' || c == ']').to_string());
        } else {
            match w {
                "offen" => m.offen = true,
                "idxen" => m.idxen = true,
                "glc" | "sc0" => m.glc = true,
                "clamp" => m.clamp = true,
                w if w.starts_with("src0_sel:")
                    || w.starts_with("src1_sel:")
                    || w.starts_with("dst_sel:")
                    || w.starts_with("dst_unused:") =>
                {
                    let (k, v) = w.split_once(':').unwrap_or((w, ""));
                    let sd = m.sdwa.get_or_insert_with(Sdwa::default);
                    let bad = || format!("`{w}` is not an SDWA selection");
                    match k {
                        "src0_sel" => sd.src[0] = Sel::of(v).ok_or_else(bad)?,
                        "src1_sel" => sd.src[1] = Sel::of(v).ok_or_else(bad)?,
                        "dst_sel" => sd.dst = Sel::of(v).ok_or_else(bad)?,
                        _ => {
                            sd.unused = match v {
                                "UNUSED_PAD" => Unused::Pad,
                                "UNUSED_SEXT" => Unused::Sext,
                                "UNUSED_PRESERVE" => Unused::Preserve,
                                _ => return Err(bad()),
                            }
                        }
                    }
                }
                w if w.starts_with("op_sel:")
                    || w.starts_with("op_sel_hi:")
                    || w.starts_with("neg_lo:")
                    || w.starts_with("neg_hi:") =>
                {
                    let (k, v) = w.split_once(':').unwrap_or((w, ""));
                    let list = v
                        .strip_prefix('[')
                        .and_then(|r| r.strip_suffix(']'))
                        .ok_or_else(|| format!("`{w}` is not {k}:[…]"))?;
                    let (mut bits, mut n) = (0u8, 0u8);
                    for (i, b) in list.split(',').enumerate() {
                        match b.trim() {
                            "0" => {}
                            "1" if i < 8 => bits |= 1 << i,
                            _ => return Err(format!("`{w}` is not {k}:[…] of 0 and 1")),
                        }
                        n = i as u8 + 1;
                    }
                    match k {
                        "op_sel" => (m.op_sel, m.op_sel_n) = (bits, n),
                        "op_sel_hi" => (m.op_sel_hi, m.op_sel_hi_n) = (bits, n),
                        "neg_lo" => m.neg_lo = bits,
                        _ => m.neg_hi = bits,
                    }
                }
                w if (w.starts_with("quad_perm:")
                    || w.starts_with("dpp8:")
                    || w.starts_with("row_")
                    || w.starts_with("wave_")
                    || w.starts_with("bank_mask:")
                    || w.starts_with("bound_ctrl:")
                    || w.starts_with("fi:"))
                    && read_dpp(w, m)? => {}
                "mul:2" => m.omod = 1,
                "mul:4" => m.omod = 2,
                "div:2" => m.omod = -1,
                // Cache policy: no effect on addresses or data.
                "slc" | "dlc" | "nt" | "sc1" => {}
                _ => {
                    m.unsupported.get_or_insert_with(|| w.to_string());
                }
            }
        }
    }
    Ok(())
}
