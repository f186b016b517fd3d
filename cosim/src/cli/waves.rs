//! `gpucosim waves`: a text waveform from a VCD or FST that gpucosim wrote
//! (or a failure bundle's).

use super::args::parse_cycles;
use crate::fst_vcd;
use gpucosim::error::{Error, Result};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct ViewArgs {
    /// A VCD, or a bundle directory holding one.
    file: PathBuf,
    /// Signals to show, as patterns on their names without `tb.`
    /// (`model.grant_lanes_o`, `*lane_addr_o[17]`, `in.*`; `*`
    /// matches anything); an output's name alone shows model and RTL.
    #[arg(long, num_args = 1..)]
    signals: Vec<String>,
    /// Cycles to show: `A..B` (B excluded) or `A..=B`.
    #[arg(allow_negative_numbers = true, long, value_parser = parse_cycles)]
    cycles: Option<(u64, u64)>,
}

pub(crate) fn run(a: ViewArgs) -> Result<ExitCode> {
    show(&a.file, &a.signals, a.cycles)
}

/// Whether `name` matches `pat`, where `*` matches any run of characters.
fn glob(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// `gpucosim waves`: a text waveform from a VCD or a bundle's VCD.
fn show(
    file: &std::path::Path,
    signals: &[String],
    cycles: Option<(u64, u64)>,
) -> Result<ExitCode> {
    use gpucosim_waves::text::{first_mismatch, Trace};
    let vcd = if file.is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(file)
            .map_err(|e| Error::Input(format!("cannot read {}: {e}", file.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "vcd" || x == "fst")
                    && !p.to_string_lossy().ends_with(".rtl.vcd")
            })
            .collect();
        found.sort();
        match found.len() {
            1 => found.remove(0),
            0 => {
                return Err(Error::Input(format!(
                    "{} holds no waveform (a bundle of a run with --waves has one, VCD or FST)",
                    file.display()
                )))
            }
            _ => {
                return Err(Error::Input(format!(
                    "{} holds several waveforms; name one: {}",
                    file.display(),
                    found
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    } else {
        file.to_path_buf()
    };
    if !vcd.is_file() {
        return Err(Error::Input(format!("no such file: {}", vcd.display())));
    }
    // An FST is read as the VCD it holds.
    let transcoded = if vcd.extension().is_some_and(|e| e == "fst") {
        let mut t = tempfile::NamedTempFile::new()
            .map_err(|e| Error::Env(format!("a temporary file for {}: {e}", vcd.display())))?;
        let tmp = t.path().to_path_buf();
        {
            let mut w = std::io::BufWriter::new(t.as_file_mut());
            fst_vcd::fst_to_vcd(&vcd, &mut w).map_err(|e| match e {
                fst_vcd::TranscodeError::Read(e) => {
                    Error::Input(format!("{} is not a gpucosim FST: {e}", vcd.display()))
                }
                fst_vcd::TranscodeError::Write(e) => Error::Env(format!(
                    "cannot write the VCD of {} to a temporary file ({}): {e}",
                    vcd.display(),
                    tmp.display()
                )),
            })?;
        }
        Some(t)
    } else {
        None
    };
    let shown = vcd.clone();
    let vcd = transcoded
        .as_ref()
        .map_or(vcd.clone(), |t| t.path().to_path_buf());
    let kind = if transcoded.is_some() { "FST" } else { "VCD" };
    let bad = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
            Error::Input(format!("{} is not a gpucosim {kind}: {e}", shown.display()))
        }
        _ => Error::Input(format!("cannot read {}: {e}", shown.display())),
    };
    let first = first_mismatch(&vcd).map_err(bad)?;
    let range = match (cycles, &first) {
        (Some(r), _) => r,
        (None, Some((c, _))) => (c.saturating_sub(7), c + 2),
        (None, None) => (0, u64::MAX),
    };
    let diverging: Vec<String> = first.as_ref().map(|f| f.1.clone()).unwrap_or_default();
    let mut unmatched: Vec<&String> = Vec::new();
    let mut names_seen: Vec<String> = Vec::new();
    let trace = Trace::read_vcd(&vcd, Some(range), |d| {
        let mut picks = Vec::new();
        let outputs: Vec<(&str, u32)> = d.of_scope("model").collect();
        names_seen = d
            .of_scope("in")
            .map(|(n, _)| format!("in.{n}"))
            .chain(outputs.iter().map(|(n, _)| n.to_string()))
            .collect();
        if signals.is_empty() {
            // The diverging ports, or every output when nothing diverged.
            for (name, width) in &outputs {
                let port = name.split('[').next().unwrap_or(name);
                if diverging.is_empty() || diverging.iter().any(|p| p == port) {
                    // Every 64-bit slice of a wide port; those that do not
                    // differ are dropped below.
                    for lsb in (0..*width).step_by(64) {
                        picks.extend(d.pick("model", name, lsb));
                    }
                }
            }
            return picks;
        }
        unmatched = signals.iter().collect();
        for (name, _) in d.of_scope("in") {
            if signals.iter().any(|p| glob(p, &format!("in.{name}"))) {
                picks.extend(d.pick("in", name, 0));
            }
        }
        for (name, _) in &outputs {
            let hit = |p: &String| {
                glob(p, name)
                    || glob(p, &format!("model.{name}"))
                    || glob(p, &format!("rtl.{name}"))
            };
            if signals.iter().any(hit) {
                picks.extend(d.pick("model", name, 0));
            }
        }
        unmatched.retain(|p| {
            !d.of_scope("in").any(|(n, _)| glob(p, &format!("in.{n}")))
                && !outputs.iter().any(|(n, _)| {
                    glob(p, n) || glob(p, &format!("model.{n}")) || glob(p, &format!("rtl.{n}"))
                })
        });
        picks
    })
    .map_err(bad)?;
    if let Some(p) = unmatched.first() {
        return Err(Error::Input(format!(
            "no signal matches `{p}` in {} (it has {}, …)",
            shown.display(),
            names_seen
                .iter()
                .take(6)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if trace.cycles.is_empty() {
        return Err(Error::Input(format!(
            "{} holds no cycle in {}..={}",
            shown.display(),
            range.0,
            range.1
        )));
    }
    // Without a range, at most the last cycles of a long file.
    let trace = if cycles.is_none() && first.is_none() {
        trace.last(10)
    } else {
        trace
    };
    // For an array, only the elements that differ somewhere in the range
    // (all of them when none does).
    let mut trace = trace;
    let mut more = Vec::new();
    if signals.is_empty() {
        let differs = |r: &gpucosim_waves::text::Row| r.rtl.as_ref().is_some_and(|x| *x != r.model);
        if trace.rows.iter().any(differs) {
            trace.rows.retain(differs);
        }
        // At most 8 rows per port.
        let mut per_port = std::collections::BTreeMap::<String, usize>::new();
        trace.rows.retain(|r| {
            let port = r
                .pick
                .name
                .split('[')
                .next()
                .unwrap_or_default()
                .to_string();
            let n = per_port.entry(port).or_default();
            *n += 1;
            *n <= 8
        });
        for (port, n) in per_port.into_iter().filter(|(_, n)| *n > 8) {
            more.push(format!(
                "… and {} more of {port} (--signals '{port}[*' shows them all)",
                n - 8
            ));
        }
    }
    if let Some((c, ports)) = &first {
        println!(
            "{}: first divergence at cycle {c} on {}",
            shown.display(),
            ports.join(", ")
        );
    }
    print!("{}", trace.render());
    for m in more {
        println!("{m}");
    }
    Ok(ExitCode::SUCCESS)
}
