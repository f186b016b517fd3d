//! The profile of an emulated launch: per `ds_*` instruction its cycles in
//! the LDS unit and those beyond the conflict-free minimum, per buffer
//! instruction its cache-line requests against the fewest its bytes need,
//! per `global_*`/`flat_*` instruction its executions (they do not go
//! through the TA unit). Text table, JSON and an SVG plot.
//! Columns: docs/kernels.md "The profile".

use crate::asm;
use gpucosim_model::lds::tlm::{Lds, LANES, SLOTS};
use gpucosim_model::ta::tlm::{get_bit, LaneResults, LineReq};
use serde::Serialize;

/// Counts of one `ds_*` instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DsStat {
    /// Executions (one per wave that ran it).
    pub executions: u64,
    /// BUSY cycles in the LDS unit, all executions.
    pub cycles: u64,
    /// The conflict-free minimum of those cycles.
    pub min_cycles: u64,
    /// `cycles - min_cycles`.
    pub conflict_cycles: u64,
    /// The execution with the most conflict cycles: its conflict cycles…
    pub worst_conflict_cycles: u64,
    /// … its cycles …
    pub worst_cycles: u64,
    /// … and per bank the dwords it accessed there (atomics: the accesses).
    pub worst_banks: Vec<u32>,
    /// Active lanes that address the LDS (permutes do not), all
    /// executions.
    pub lanes: u64,
    /// Those with a dword out of the allocation (it reads 0, a write of
    /// it is dropped).
    pub oor_lanes: u64,
}

/// Counts of one buffer instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BufStat {
    /// Executions.
    pub executions: u64,
    /// Cache-line requests, all executions.
    pub lines: u64,
    /// The fewest line requests that could carry the bytes accessed
    /// (distinct bytes per line request, summed over executions).
    pub min_lines: u64,
    /// Active lanes, all executions.
    pub lanes: u64,
    /// Active lanes with a slot out of range.
    pub oor_lanes: u64,
    /// Lanes that raised MEMVIOL.
    pub memviol_lanes: u64,
}

/// Counts of one global or flat instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GlobalStat {
    /// Executions.
    pub executions: u64,
    /// Active lanes, all executions.
    pub lanes: u64,
}

/// What one instruction counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum InstStat {
    /// Not a memory instruction of the units (or never run).
    #[default]
    None,
    /// `ds_*`.
    Ds(DsStat),
    /// `buffer_*`, `tbuffer_*`.
    Buf(BufStat),
    /// `global_*`, `flat_*`.
    Global(GlobalStat),
}

/// Counts per instruction of a kernel.
#[derive(Debug, Clone)]
pub struct Stats {
    /// By instruction index.
    pub per: Vec<InstStat>,
    banks: u32,
    /// Active lanes of `ds_*` executions that address the LDS with at
    /// least one dword in the allocation.
    pub lds_in_range_lanes: u64,
}

impl Stats {
    /// Empty counts for `n` instructions on `banks` LDS banks.
    pub fn new(n: usize, banks: u32) -> Stats {
        Stats {
            per: vec![InstStat::None; n],
            banks,
            lds_in_range_lanes: 0,
        }
    }

    /// Counts the instruction the LDS unit `u` just completed.
    pub fn ds(&mut self, at: usize, u: &Lds, banks: u32) {
        let (min, hist) = conflict_free(u, banks);
        let cycles = u64::from(u.out.cycles);
        // Lanes with a dword out of range, and with one in range (permutes
        // address no LDS; a MEMVIOL lane accesses nothing).
        let (mut lanes, mut oor, mut inr) = (0u64, 0u64, 0u64);
        if !matches!(
            u.info().kind,
            gpucosim_model::lds::isa::Kind::Permute | gpucosim_model::lds::isa::Kind::Bpermute
        ) {
            let mut m = u.active();
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let (exists, out) = (u.slot_mask()[l], u.out.oor[l]);
                if exists == 0 {
                    continue;
                }
                lanes += 1;
                oor += u64::from(out != 0);
                inr += u64::from(exists & !out != 0);
            }
        }
        self.lds_in_range_lanes += inr;
        let InstStat::Ds(s) = self.entry(at, || InstStat::Ds(DsStat::default())) else {
            return;
        };
        let conflict = cycles.saturating_sub(min);
        s.lanes += lanes;
        s.oor_lanes += oor;
        s.executions += 1;
        s.cycles += cycles;
        s.min_cycles += min;
        s.conflict_cycles += conflict;
        if s.executions == 1 || conflict > s.worst_conflict_cycles {
            s.worst_conflict_cycles = conflict;
            s.worst_cycles = cycles;
            s.worst_banks = hist;
        }
    }

    /// Counts a buffer instruction: its lane results and line requests on
    /// lines of `line` bytes.
    pub fn buffer(&mut self, at: usize, res: &LaneResults, reqs: &[LineReq], line: u32) {
        let bytes: u64 = reqs.iter().map(|r| u64::from(r.mask.count_ones())).sum();
        let mut oor = 0;
        for l in 0..64 {
            if res.active >> l & 1 != 0
                && (0..res.shape.slots as usize).any(|d| !get_bit(&res.inrange, 4 * l + d))
            {
                oor += 1;
            }
        }
        let InstStat::Buf(s) = self.entry(at, || InstStat::Buf(BufStat::default())) else {
            return;
        };
        s.executions += 1;
        s.lines += reqs.len() as u64;
        s.min_lines += bytes.div_ceil(u64::from(line));
        s.lanes += u64::from(res.active.count_ones());
        s.oor_lanes += oor;
        s.memviol_lanes += u64::from((res.memviol & res.active).count_ones());
    }

    /// Counts a global or flat instruction run on `lanes` lanes.
    pub fn global(&mut self, at: usize, lanes: u32) {
        if let InstStat::Global(s) = self.entry(at, || InstStat::Global(GlobalStat::default())) {
            s.executions += 1;
            s.lanes += u64::from(lanes);
        }
    }

    fn entry(&mut self, at: usize, new: impl FnOnce() -> InstStat) -> &mut InstStat {
        let e = &mut self.per[at];
        if *e == InstStat::None {
            *e = new();
        }
        e
    }

    /// LDS banks.
    pub fn banks(&self) -> u32 {
        self.banks
    }
}

/// The conflict-free minimum of the instruction `u` just completed, and
/// its accesses per bank: per 32-lane pass with an active lane, one cycle
/// per `banks` distinct in-range dwords (atomics: per `banks` in-range
/// accesses, as they are never merged), at least one; an instruction with
/// no active lane, one cycle; a permute, one cycle per pass.
pub fn conflict_free(u: &Lds, banks: u32) -> (u64, Vec<u32>) {
    let info = u.info();
    let atomic = info.kind == gpucosim_model::lds::isa::Kind::Atomic;
    let mut hist = vec![0u32; banks as usize];
    let active = u.active();
    if active == 0 {
        return (1, hist);
    }
    let mut min = 0u64;
    let mut dwords: Vec<(u8, u32)> = Vec::with_capacity(32 * SLOTS);
    for pass in 0..LANES / 32 {
        if active >> (32 * pass) & 0xffff_ffff == 0 {
            continue;
        }
        dwords.clear();
        for l in 32 * pass..32 * pass + 32 {
            for k in 0..SLOTS {
                let s = u.slot(SLOTS * l + k);
                if s.exists && !s.oor {
                    dwords.push((s.bank, s.dword));
                }
            }
        }
        if !atomic {
            dwords.sort_unstable();
            dwords.dedup();
        }
        for &(b, _) in &dwords {
            hist[b as usize] += 1;
        }
        min += (dwords.len() as u64).div_ceil(u64::from(banks)).max(1);
    }
    (min, hist)
}

/// One row of the profile.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// 1-based line of the instruction.
    pub line: usize,
    /// The instruction as written.
    pub text: String,
    /// `lds`, `ta`, or `global` (global and flat: not through the TA unit).
    pub unit: &'static str,
    /// LDS counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lds: Option<DsStat>,
    /// TA counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ta: Option<BufStat>,
    /// Global/flat counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<GlobalStat>,
}

/// Kernel totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Instructions emulated (summed over waves).
    pub instructions: u64,
    /// `ds_*` executions.
    pub lds_executions: u64,
    /// LDS-unit cycles.
    pub lds_cycles: u64,
    /// Their conflict-free minimum.
    pub lds_min_cycles: u64,
    /// Cycles beyond it.
    pub lds_conflict_cycles: u64,
    /// Active lanes of `ds_*` executions that address the LDS.
    pub lds_lanes: u64,
    /// Those with a dword out of the allocation.
    pub lds_oor_lanes: u64,
    /// Buffer executions.
    pub ta_executions: u64,
    /// Line requests.
    pub ta_lines: u64,
    /// Their minimum.
    pub ta_min_lines: u64,
    /// Out-of-range lanes.
    pub ta_oor_lanes: u64,
    /// MEMVIOL lanes.
    pub ta_memviol_lanes: u64,
    /// Global and flat executions (not through the TA unit).
    pub global_executions: u64,
}

/// The profile of a launch.
#[derive(Debug, Clone, Serialize)]
pub struct PerfProfile {
    /// The file.
    pub file: String,
    /// The kernel.
    pub kernel: String,
    /// The profile (`gfx9`, `gfx11`).
    pub profile: String,
    /// Wave size.
    pub wave_size: u32,
    /// LDS banks (per the profile and the kernel's CU/WGP mode).
    pub banks: u32,
    /// TA cache-line bytes.
    pub line_bytes: u32,
    /// Work-items per dimension.
    pub grid: [u32; 3],
    /// Work-group size.
    pub workgroup: [u32; 3],
    /// Work-groups run (of all in the grid).
    pub workgroups_run: usize,
    /// Work-groups in the grid.
    pub workgroups: u64,
    /// The LDS allocation, bytes.
    pub lds_size: u32,
    /// The kernel's static group segment (`.amdhsa_group_segment_fixed_size`),
    /// at the allocation's start.
    pub lds_static: u32,
    /// The `__local` pointer arguments after it.
    pub lds_args: Vec<super::launch::LdsArg>,
    /// Per instruction (memory instructions only, in kernel order).
    pub instructions: Vec<Row>,
    /// Totals.
    pub total: Totals,
}

impl PerfProfile {
    /// The profile of `stats` for `kernel`.
    pub fn new(
        file: &str,
        kernel: &asm::Kernel,
        profile: gpucosim_model::Profile,
        launch: &super::launch::Launch,
        stats: &Stats,
        instructions: u64,
    ) -> PerfProfile {
        let mut rows = Vec::new();
        let mut t = Totals {
            instructions,
            ..Totals::default()
        };
        for (i, s) in stats.per.iter().enumerate() {
            let inst = &kernel.insts[i];
            let mut row = Row {
                line: inst.line,
                text: inst.text(),
                unit: "",
                lds: None,
                ta: None,
                global: None,
            };
            match s {
                InstStat::None => continue,
                InstStat::Ds(d) => {
                    t.lds_executions += d.executions;
                    t.lds_cycles += d.cycles;
                    t.lds_min_cycles += d.min_cycles;
                    t.lds_conflict_cycles += d.conflict_cycles;
                    t.lds_lanes += d.lanes;
                    t.lds_oor_lanes += d.oor_lanes;
                    row.unit = "lds";
                    row.lds = Some(d.clone());
                }
                InstStat::Buf(b) => {
                    t.ta_executions += b.executions;
                    t.ta_lines += b.lines;
                    t.ta_min_lines += b.min_lines;
                    t.ta_oor_lanes += b.oor_lanes;
                    t.ta_memviol_lanes += b.memviol_lanes;
                    row.unit = "ta";
                    row.ta = Some(b.clone());
                }
                InstStat::Global(g) => {
                    t.global_executions += g.executions;
                    row.unit = "global";
                    row.global = Some(g.clone());
                }
            }
            rows.push(row);
        }
        let c = launch.counts();
        PerfProfile {
            file: file.to_string(),
            kernel: kernel.name.clone(),
            profile: profile.name().to_string(),
            wave_size: if launch.desc.wave32 { 32 } else { 64 },
            banks: stats.banks(),
            line_bytes: gpucosim_model::ta::TaParams::of(profile).line_bytes,
            grid: launch.grid,
            workgroup: launch.wg,
            workgroups_run: launch.run.len(),
            workgroups: c.iter().map(|&x| u64::from(x)).product(),
            lds_size: launch.lds_size,
            lds_static: launch.desc.lds_bytes,
            lds_args: launch.lds_args.clone(),
            instructions: rows,
            total: t,
        }
    }

    /// The profile as a text table.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let [gx, gy, gz] = self.grid;
        let [wx, wy, wz] = self.workgroup;
        let _ = write!(
            s,
            "{} ({}, wave{}): grid {gx}x{gy}x{gz}, work-groups of {wx}x{wy}x{wz}, {} of {} work-groups run, {} instructions emulated",
            self.kernel, self.profile, self.wave_size, self.workgroups_run, self.workgroups, self.total.instructions
        );
        if !self.lds_args.is_empty() {
            let _ = write!(
                s,
                "; LDS {} bytes: {} static",
                self.lds_size, self.lds_static
            );
            for a in &self.lds_args {
                let _ = write!(s, ", `{}` {} at {}", a.name, a.size, a.offset);
            }
        }
        s.push('\n');
        let width = self
            .instructions
            .iter()
            .map(|r| r.text.len())
            .max()
            .unwrap_or(10)
            .clamp(20, 48);
        let cut = |t: &str| -> String {
            if t.len() > width {
                format!("{}…", &t[..width - 1])
            } else {
                t.to_string()
            }
        };
        let lds: Vec<&Row> = self
            .instructions
            .iter()
            .filter(|r| r.lds.is_some())
            .collect();
        if !lds.is_empty() {
            let _ = writeln!(
                s,
                "\nLDS unit ({} banks): cycles per instruction",
                self.banks
            );
            let _ = writeln!(
                s,
                "  {:>5}  {:width$}  {:>7} {:>9} {:>9} {:>9} {:>6} {:>9}  worst execution's banks (bank:dwords)",
                "line", "instruction", "execs", "cycles", "minimum", "conflict", "worst", "oor lanes"
            );
            for r in lds {
                let d = r.lds.as_ref().expect("an LDS row");
                let _ = writeln!(
                    s,
                    "  {:>5}  {:width$}  {:>7} {:>9} {:>9} {:>9} {:>6} {:>9}  {}",
                    r.line,
                    cut(&r.text),
                    d.executions,
                    d.cycles,
                    d.min_cycles,
                    d.conflict_cycles,
                    d.worst_conflict_cycles,
                    d.oor_lanes,
                    banks_text(&d.worst_banks)
                );
            }
        }
        let ta: Vec<&Row> = self
            .instructions
            .iter()
            .filter(|r| r.ta.is_some())
            .collect();
        if !ta.is_empty() {
            let _ = writeln!(
                s,
                "\nTA unit ({}-byte lines): line requests per instruction",
                self.line_bytes
            );
            let _ = writeln!(
                s,
                "  {:>5}  {:width$}  {:>7} {:>8} {:>9} {:>9} {:>9} {:>9}",
                "line",
                "instruction",
                "execs",
                "lines",
                "per exec",
                "min/exec",
                "oor lanes",
                "memviol"
            );
            for r in ta {
                let b = r.ta.as_ref().expect("a TA row");
                let per = |x: u64| x as f64 / b.executions.max(1) as f64;
                let _ = writeln!(
                    s,
                    "  {:>5}  {:width$}  {:>7} {:>8} {:>9.2} {:>9.2} {:>9} {:>9}",
                    r.line,
                    cut(&r.text),
                    b.executions,
                    b.lines,
                    per(b.lines),
                    per(b.min_lines),
                    b.oor_lanes,
                    b.memviol_lanes
                );
            }
        }
        let gl: Vec<&Row> = self
            .instructions
            .iter()
            .filter(|r| r.global.is_some())
            .collect();
        if !gl.is_empty() {
            let _ = writeln!(
                s,
                "\nglobal/flat (not through the TA unit, which takes MUBUF/MTBUF only)"
            );
            let _ = writeln!(
                s,
                "  {:>5}  {:width$}  {:>7} {:>8}",
                "line", "instruction", "execs", "lanes"
            );
            for r in gl {
                let g = r.global.as_ref().expect("a global row");
                let _ = writeln!(
                    s,
                    "  {:>5}  {:width$}  {:>7} {:>8}",
                    r.line,
                    cut(&r.text),
                    g.executions,
                    g.lanes
                );
            }
        }
        let t = &self.total;
        let pct = |a: u64, b: u64| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        let _ = writeln!(
            s,
            "\ntotal: LDS {} executions, {} cycles, {} beyond the conflict-free {} ({:.1}%), {} out-of-range lanes; TA {} executions, {} line requests (minimum {}), {} out-of-range and {} MEMVIOL lanes; {} global/flat executions not through the TA unit",
            t.lds_executions,
            t.lds_cycles,
            t.lds_conflict_cycles,
            t.lds_min_cycles,
            pct(t.lds_conflict_cycles, t.lds_cycles),
            t.lds_oor_lanes,
            t.ta_executions,
            t.ta_lines,
            t.ta_min_lines,
            t.ta_oor_lanes,
            t.ta_memviol_lanes,
            t.global_executions
        );
        s
    }

    /// A bar chart (SVG) of the conflict cycles of each `ds_*`
    /// instruction, by line.
    pub fn svg(&self) -> String {
        use std::fmt::Write as _;
        let rows: Vec<&Row> = self
            .instructions
            .iter()
            .filter(|r| r.lds.is_some())
            .collect();
        let max = rows
            .iter()
            .map(|r| r.lds.as_ref().map_or(0, |d| d.conflict_cycles))
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let title = format!(
            "{} ({}): LDS bank-conflict cycles per instruction",
            self.kernel, self.profile
        );
        const AXIS: &str = "source line of each ds_* instruction";
        // The canvas fits its texts: a sans-serif glyph is at most about
        // 0.62 em wide on average (the 14-pixel title, the 11-pixel
        // labels), so the chart is never narrower than what it writes.
        let text_w = |t: &str, px: f64| t.chars().count() as f64 * px * 0.62;
        let (bar, gap, top, h) = (28.0, 12.0, 50.0, 240.0);
        let left = (text_w(&(max as u64).to_string(), 11.0) + 16.0).max(40.0);
        let w = (left + (bar + gap) * rows.len().max(1) as f64 + 30.0)
            .max(left + text_w(&title, 14.0) + 20.0)
            .max(left + text_w(AXIS, 11.0) + 20.0);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"11\">",
            top + h + 60.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{left}\" y=\"22\" font-size=\"14\">{}</text>",
            xml(&title)
        );
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{:.0}\" stroke=\"black\"/>",
            top + h
        );
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{:.0}\" x2=\"{:.0}\" y2=\"{:.0}\" stroke=\"black\"/>",
            top + h,
            w - 20.0,
            top + h
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.0}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            top + 4.0,
            max as u64
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.0}\" text-anchor=\"end\">0</text>",
            left - 6.0,
            top + h + 4.0
        );
        for (i, r) in rows.iter().enumerate() {
            let d = r.lds.as_ref().expect("an LDS row");
            let x = left + gap + (bar + gap) * i as f64;
            let bh = h * d.conflict_cycles as f64 / max;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{bh:.1}\" fill=\"#c0392b\"><title>line {}: {} — {} conflict cycles of {} in {} executions</title></rect>",
                top + h - bh,
                r.line,
                xml(&r.text),
                d.conflict_cycles,
                d.cycles,
                d.executions
            );
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.0}\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                top + h + 16.0,
                r.line
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{left}\" y=\"{:.0}\">{AXIS}</text>",
            top + h + 40.0
        );
        s.push_str("</svg>\n");
        s
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Non-empty banks as `bank:dwords`, the busiest first, at most eight.
fn banks_text(h: &[u32]) -> String {
    let mut v: Vec<(usize, u32)> = h
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, n)| *n > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let more = v.len().saturating_sub(8);
    let mut s: Vec<String> = v.iter().take(8).map(|(b, n)| format!("{b}:{n}")).collect();
    if more > 0 {
        s.push(format!("+{more} banks"));
    }
    s.join(" ")
}
