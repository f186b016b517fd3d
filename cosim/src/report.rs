//! The human-readable report of a run: what diverged, decoded per lane,
//! bank or wave; how a run that did not complete ended; the transaction
//! and the model state in that cycle; where the waveforms are; how to
//! reproduce it.

use crate::engine::{shell_quote, Headline, Mismatch, Outcome, RunSpec};
use crate::testbench::Index;
use gpucosim_model::ports::PortTable;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// The human-readable report of a run that did not pass: the divergence
/// decoded per lane, bank or wave (or how the run ended), a text waveform
/// of the diverging ports, the transaction in flight, the model state in
/// that cycle, the RTL's last words, the waveform files and the command
/// that reproduces it. Empty for a passing run.
pub fn report<T: Serialize>(spec: &RunSpec, o: &Outcome<T>, table: &PortTable) -> String {
    let _ = table;
    let mut s = String::new();
    let headline = Headline::of(&o.end);
    if let Some(first) = o.mismatches.first() {
        s.push_str(&format!(
            "DIVERGENCE in {} at cycle {}{}: model and RTL differ on {}\n",
            spec.name(),
            first.cycle,
            if first.in_reset {
                ", during reset (rst_ni low)"
            } else {
                ""
            },
            o.mismatches
                .iter()
                .filter(|m| m.cycle == first.cycle)
                .map(|m| m.signal.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if let Some(h) = &headline {
        s.push_str(&h.line(&spec.name()));
        s.push('\n');
    } else {
        return s;
    }
    let several = o
        .mismatches
        .iter()
        .any(|m| m.cycle != o.mismatches[0].cycle);
    let mut shown = None;
    for m in &o.mismatches {
        if several && shown != Some(m.cycle) {
            shown = Some(m.cycle);
            s.push_str(&format!(
                "  cycle {}{}:\n",
                m.cycle,
                if m.in_reset { " (during reset)" } else { "" }
            ));
        }
        let pad = if several { "    " } else { "  " };
        describe(&mut s, pad, m);
    }
    if !o.mismatches.is_empty() {
        if let Some(h) = &headline {
            s.push_str(&format!("  then: {} {}: {}\n", h.kind, h.when, h.what));
        }
    }
    if let Some(w) = o.trace.as_ref().filter(|w| !w.is_empty()) {
        s.push_str("  waveform (model above RTL):\n");
        for l in w.lines() {
            s.push_str(&format!("    {l}\n"));
        }
    }
    let when = o
        .mismatches
        .first()
        .map(|m| m.cycle)
        .or(o.end_cycle())
        .map(|c| format!(" in cycle {c}"))
        .unwrap_or_default();
    if let Some((i, t)) = &o.in_flight {
        let focus = o
            .mismatches
            .iter()
            .find_map(Mismatch::focus)
            .filter(|(ix, _)| matches!(ix, Index::Wave))
            .map(|(ix, k)| format!(" of {} {k}", ix.noun(false)))
            .unwrap_or_default();
        s.push_str(&format!("  transaction #{i}{focus}, in flight{when}:\n"));
        let v = serde_json::to_value(t).unwrap_or_default();
        for l in wrap_value(&v) {
            s.push_str(&format!("    {l}\n"));
        }
        for l in &o.in_flight_decoded {
            s.push_str(&format!("    {l}\n"));
        }
    }
    if let Some(state) = o.state.as_ref().filter(|s| !s.is_empty()) {
        s.push_str(&format!("  model state{when}, before its edge: {state}\n"));
    }
    if !o.rtl_text.is_empty() {
        s.push_str("  the RTL's last output:\n");
        for l in &o.rtl_text {
            s.push_str(&format!("    {l}\n"));
        }
    }
    match (&o.vcd, o.window) {
        (Some(v), Some((a, b))) => {
            s.push_str(&format!("  waveform: {} (cycles {a}..={b})\n", v.display()))
        }
        (Some(v), None) => s.push_str(&format!("  waveform: {}\n", v.display())),
        _ => {}
    }
    for p in &o.sessions {
        s.push_str(&format!(
            "  session: {}\n",
            session_command(p, o.vcd.as_deref())
        ));
    }
    if let Some(e) = &o.vcd_error {
        s.push_str(&format!("  waveform NOT written: {e}\n"));
    }
    s.push_str(&format!("  reproduce: {}\n", spec.repro_command()));
    s
}

/// How to open a session file.
/// The command that opens session `p`: of the run's waveform `dump` (VCD
/// or FST) when `p` is its session, else of the VCD or FST beside `p`.
fn session_command(p: &Path, dump: Option<&Path>) -> String {
    let q = |p: &Path| shell_quote(&p.display().to_string());
    match p.extension().and_then(|e| e.to_str()) {
        Some("gtkw") => format!("gtkwave {}", q(p)),
        Some("sucl") => {
            let own = dump.filter(|d| d.with_extension("sucl") == p);
            let dump = own.map(Path::to_path_buf).unwrap_or_else(|| {
                ["vcd", "fst"]
                    .iter()
                    .map(|e| p.with_extension(e))
                    .find(|d| d.exists())
                    .unwrap_or_else(|| p.with_extension("vcd"))
            });
            format!("surfer {} -c {}", q(&dump), q(p))
        }
        _ => q(p),
    }
}

/// Groups of elements listed before "… more".
const GROUPS: usize = 8;

/// One diverging port: the value for a plain port; for an array or a
/// mask, the differing elements grouped by value and named by what they
/// stand for (`lanes 0-15: model 1, rtl 0`).
#[doc(hidden)]
pub fn describe(s: &mut String, pad: &str, m: &Mismatch) {
    if m.elements.is_empty() {
        s.push_str(&format!(
            "{pad}{}: model {}, rtl {}\n",
            m.signal,
            group_hex(&m.model),
            group_hex(&m.rtl)
        ));
        return;
    }
    let mask = m.elements.iter().all(|e| e.1.len() == 1);
    let items: BTreeSet<usize> = m
        .elements
        .iter()
        .map(|e| m.index.map_or(e.0, |ix| ix.item(e.0)))
        .collect();
    let items: Vec<usize> = items.into_iter().collect();
    let many = items.len() != 1;
    let noun = match m.index {
        Some(ix) => ix.noun(many),
        None if mask => ["bit", "bits"][many as usize],
        None => ["element", "elements"][many as usize],
    };
    s.push_str(&format!(
        "{pad}{}: {} {}{} {}{}\n",
        m.signal,
        items.len(),
        noun,
        if m.index == Some(Index::LaneDword) {
            format!(" ({} dwords)", m.elements.len())
        } else {
            String::new()
        },
        if many { "differ" } else { "differs" },
        if mask || items.len() <= 1 {
            String::new()
        } else {
            format!(": {}", ranges(&items, 24))
        }
    ));
    // Group the elements by their pair of values, in order of first
    // appearance.
    let mut groups: Vec<(&str, &str, Vec<usize>)> = Vec::new();
    for (e, a, b) in &m.elements {
        match groups.iter_mut().find(|g| g.0 == a && g.1 == b) {
            Some(g) => g.2.push(*e),
            None => groups.push((a, b, vec![*e])),
        }
    }
    for (a, b, idx) in groups.iter().take(GROUPS) {
        let (a, b) = if mask {
            (a.to_string(), b.to_string())
        } else {
            (group_hex(a), group_hex(b))
        };
        s.push_str(&format!(
            "{pad}  {}: model {a}, rtl {b}\n",
            name_elements(m.index, &m.signal, idx)
        ));
    }
    if groups.len() > GROUPS {
        let rest: usize = groups[GROUPS..].iter().map(|g| g.2.len()).sum();
        s.push_str(&format!(
            "{pad}  … {} more value pair(s), {rest} element(s)\n",
            groups.len() - GROUPS
        ));
    }
}

/// `lane 5`, `lanes 0-15, 17`, `lane 3 dwords 0-1`, `elements 4-7`.
#[doc(hidden)]
pub fn name_elements(ix: Option<Index>, port: &str, idx: &[usize]) -> String {
    match ix {
        None => {
            if idx.len() == 1 {
                format!("{port}[{}]", idx[0])
            } else {
                format!("{port}[{}]", ranges(idx, 16))
            }
        }
        Some(Index::LaneDword) => {
            let mut by_lane: Vec<(usize, Vec<usize>)> = Vec::new();
            for &i in idx {
                match by_lane.last_mut() {
                    Some((l, d)) if *l == i / 4 => d.push(i % 4),
                    _ => by_lane.push((i / 4, vec![i % 4])),
                }
            }
            let full: Vec<usize> = by_lane
                .iter()
                .filter(|(_, d)| d.len() == 4)
                .map(|(l, _)| *l)
                .collect();
            let mut parts = Vec::new();
            if !full.is_empty() {
                parts.push(format!(
                    "{} {}",
                    Index::Lane.noun(full.len() > 1),
                    ranges(&full, 16)
                ));
            }
            for (l, d) in by_lane.iter().filter(|(_, d)| d.len() < 4).take(8) {
                parts.push(format!(
                    "lane {l} {} {}",
                    if d.len() > 1 { "dwords" } else { "dword" },
                    ranges(d, 4)
                ));
            }
            let partial = by_lane.iter().filter(|(_, d)| d.len() < 4).count();
            if partial > 8 {
                parts.push(format!("… {} more lanes", partial - 8));
            }
            parts.join(", ")
        }
        Some(ix) => format!("{} {}", ix.noun(idx.len() > 1), ranges(idx, 16)),
    }
}

/// Sorted indices as ranges: `0-15, 17, 20-23`, at most `max` ranges
/// (then `… (N in all)`).
#[doc(hidden)]
pub fn ranges(idx: &[usize], max: usize) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &i in idx {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == i => *hi = i,
            _ => runs.push((i, i)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .take(max)
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        })
        .collect();
    if runs.len() > max {
        parts.push(format!("… ({} in all)", idx.len()));
    }
    parts.join(", ")
}

/// A hex value with more than 16 digits grouped by 8 (`0x1234_5678abcd…`
/// becomes `0x12345678_9abcdef0_…`), so long values can be read.
#[doc(hidden)]
pub fn group_hex(v: &str) -> String {
    let Some(digits) = v.strip_prefix("0x") else {
        return v.to_string();
    };
    if digits.len() <= 16 {
        return v.to_string();
    }
    let mut out = String::from("0x");
    let first = digits.len() % 8;
    let (head, rest) = digits.split_at(first);
    let mut parts: Vec<&str> = Vec::new();
    if !head.is_empty() {
        parts.push(head);
    }
    parts.extend(
        rest.as_bytes()
            .chunks(8)
            .map(|c| std::str::from_utf8(c).unwrap_or("")),
    );
    out.push_str(&parts.join("_"));
    out
}

/// A transaction as lines: its scalar fields together, wrapped; each array
/// field on lines of its own, 8 or 16 values per line, each line starting
/// with the index of its first value.
#[doc(hidden)]
pub fn wrap_value(v: &serde_json::Value) -> Vec<String> {
    const WIDTH: usize = 96;
    let Some(obj) = v.as_object() else {
        return vec![v.to_string()];
    };
    let mut lines = Vec::new();
    let mut line = String::new();
    for (k, x) in obj {
        if x.is_array() {
            continue;
        }
        let item = match x.as_str() {
            // A long hex string (a V#) in groups of 8 digits.
            Some(h) if h.starts_with("0x") => format!("{k}: {}", group_hex(h)),
            _ => format!("{k}: {x}"),
        };
        if !line.is_empty() && line.len() + item.len() + 2 > WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&item);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    for (k, x) in obj {
        let Some(a) = x.as_array() else { continue };
        let vals: Vec<String> = a.iter().map(|e| e.to_string()).collect();
        let widest = vals.iter().map(String::len).max().unwrap_or(1);
        let per = if widest <= 4 { 16 } else { 8 };
        let label = format!("{k}:");
        let lw = vals.len().saturating_sub(1).to_string().len() + 2;
        for (row, chunk) in vals.chunks(per).enumerate() {
            let head = if row == 0 { label.as_str() } else { "" };
            let cells: Vec<String> = chunk.iter().map(|c| format!("{c:>widest$}")).collect();
            lines.push(format!(
                "{head:<w$} {:>lw$} {}",
                format!("[{}]", row * per),
                cells.join(" "),
                w = label.len().max(8),
            ));
        }
        if vals.is_empty() {
            lines.push(format!("{label} []"));
        }
    }
    lines
}
