//! The decoded signals of a real divergence, end to end: the broken-RTL
//! fixture `ta_gfx9_stride0_range_gt` (the gfx9 raw-buffer range check
//! `>= num_records` turned into `>`) makes one lane-dword of
//! `lane_inrange_o` differ. The VCD and the FST of the run hold that
//! lane's own one-bit signal on both sides with the values the report
//! names, the V# fields of the instruction in flight as the model's
//! decoder reads its V#, and the instruction as text; the sessions list
//! the lane's signal first, then its address, then the packed port; and
//! GTKWave (under Xvfb, as `docs/screenshot.sh` runs it) opens the session
//! showing them in that order, with a screenshot when ImageMagick's
//! `import` is there. The GTKWave part is skipped, saying so, without
//! `gtkwave` and `xvfb-run`, unless `GPUCOSIM_REQUIRE_GTKWAVE=1`.

use crate::gpucosim_bin;
use gpucosim_model::ta::isa::{VsField, Vsharp};
use gpucosim_model::ta::TaParams;
use gpucosim_model::Profile;
use gpucosim_tests::{quick, repo_root, vcd_value, BrokenFixture, Vcd};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The fixture run with `--waves DIR` in `format`; returns the report.
fn run(f: &BrokenFixture, rtl: &Path, waves: &Path, format: &str) -> String {
    let out = quick(Command::new(gpucosim_bin()))
        .args(["run", "--unit", &f.unit, "--profile", &f.profile])
        .args(["--seed", &f.seed.to_string()])
        .args(["--cycles", &f.cycles.to_string()])
        .args(["--waves-format", format])
        .arg("--rtl")
        .arg(rtl)
        .arg("--waves")
        .arg(waves)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The divergence the report names: cycle, and the first diverging lane
/// and dword of `lane_inrange_o` with the model's and the RTL's bit.
fn divergence(report: &str) -> (u64, u32, u32, u64, u64) {
    let cycle = report
        .split("at cycle ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or_else(|| panic!("no cycle in:\n{report}"));
    let line = report
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("lane_inrange_o:"))
        .nth(1)
        .unwrap_or_else(|| panic!("lane_inrange_o does not diverge:\n{report}"));
    // `lane 32 dword 0: model 0, rtl 1`
    let w: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    assert_eq!(
        (w[0], w[2], w[4], w[6]),
        ("lane", "dword", "model", "rtl"),
        "{line}"
    );
    let n = |s: &str| s.parse::<u64>().unwrap();
    (cycle, n(w[1]) as u32, n(w[3]) as u32, n(w[5]), n(w[7]))
}

/// The V# and the cycle of the last instruction the model accepted at or
/// before `cycle`, from the VCD's ports.
fn accepted_vsharp(vcd: &Vcd, cycle: u64) -> (u64, u128) {
    for c in (0..=cycle).rev() {
        let t = 10 * c;
        let bit = |p: &str| vcd.value_at(p, t).and_then(vcd_value) == Some(1);
        if bit("tb.in.rst_ni") && bit("tb.in.req_valid_i") && bit("tb.model.req_ready_o") {
            let v = vcd.value_at("tb.in.vsharp_i", t).unwrap();
            return (c, u128::from_str_radix(v, 2).unwrap());
        }
    }
    panic!("no instruction accepted up to cycle {cycle}");
}

/// Per FST variable (path as the file names it), its value at each time
/// it changes.
fn read_fst(path: &Path) -> BTreeMap<String, Vec<(u64, String)>> {
    use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue};
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut r = FstReader::open_and_read_time_table(f).unwrap();
    let (mut scope, mut names) = (Vec::new(), BTreeMap::new());
    r.read_hierarchy(|e| match e {
        FstHierarchyEntry::Scope { name, .. } => scope.push(name),
        FstHierarchyEntry::UpScope => {
            scope.pop();
        }
        FstHierarchyEntry::Var { name, handle, .. } => {
            names.insert(handle.get_index(), format!("{}.{name}", scope.join(".")));
        }
        _ => {}
    })
    .unwrap();
    let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    r.read_signals(&FstFilter::all(), |t, h, v| {
        if let FstSignalValue::String(s) = v {
            out.entry(names[&h.get_index()].clone())
                .or_default()
                .push((t, String::from_utf8_lossy(s).into_owned()));
        }
    })
    .unwrap();
    out
}

/// The value of an FST variable at time `t`.
fn fst_at<'a>(f: &'a BTreeMap<String, Vec<(u64, String)>>, path: &str, t: u64) -> &'a str {
    f.get(path)
        .unwrap_or_else(|| panic!("no {path} in the FST"))
        .iter()
        .take_while(|(s, _)| *s <= t)
        .last()
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("{path} has no value at {t}"))
}

/// The traces of a .gtkw in order, with their labels.
fn gtkw_traces(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with(['[', '@', '*']) && !l.is_empty())
        .collect()
}

#[test]
fn a_lane_mask_divergence_is_decoded_in_the_waveforms_and_sessions() {
    let f = BrokenFixture::all()
        .into_iter()
        .find(|(n, _)| n == "ta_gfx9_stride0_range_gt")
        .expect("the fixture")
        .1;
    let dir = tempfile::tempdir().unwrap();
    let rtl = f.apply(dir.path());
    let (vcd_dir, fst_dir) = (dir.path().join("vcd"), dir.path().join("fst"));
    let report = run(&f, &rtl, &vcd_dir, "vcd");
    let (cycle, lane, dword, m, r) = divergence(&report);
    assert_ne!(m, r);
    let t = 10 * cycle;
    let run_name = format!("{}.{}.{}", f.unit, f.profile, f.seed);
    let vcd = Vcd::read(&vcd_dir.join(format!("{run_name}.vcd")));

    // The lane's own signal, both sides: the values the report names, the
    // same before the divergence.
    let own = |side: &str| format!("tb.{side}.lane_inrange_o.lane{lane}.dword{dword}");
    let bit = |p: &str, t: u64| vcd.value_at(p, t).and_then(vcd_value);
    assert_eq!(bit(&own("model"), t), Some(m));
    assert_eq!(bit(&own("rtl"), t), Some(r));
    assert_eq!(bit(&own("model"), t - 10), bit(&own("rtl"), t - 10));
    // It is the port's bit.
    let packed = |side: &str| {
        let v = vcd
            .value_at(&format!("tb.{side}.lane_inrange_o"), t)
            .unwrap();
        let k = 4 * lane as usize + dword as usize;
        let b = v.len().checked_sub(k + 1).map(|i| &v[i..=i]).unwrap_or("0");
        b.parse::<u64>().unwrap()
    };
    assert_eq!((packed("model"), packed("rtl")), (m, r));

    // The V# fields of the instruction in flight, as the model's decoder
    // reads its V#.
    let (accepted, v) = accepted_vsharp(&vcd, cycle);
    let layout = TaParams::of(Profile::Gfx9).vsharp;
    let vs = Vsharp::decode(Profile::Gfx9, v);
    let field = |name: &str| {
        bit(&format!("tb.in.vsharp.{name}"), t)
            .unwrap_or_else(|| panic!("no vsharp.{name} at cycle {cycle}"))
    };
    assert_eq!(field("base"), vs.base);
    assert_eq!(field("stride"), u64::from(vs.stride));
    assert_eq!(field("num_records"), u64::from(vs.num_records));
    assert_eq!(field("add_tid"), u64::from(vs.add_tid));
    assert_eq!(field("index_stride_elems"), u64::from(vs.index_stride));
    assert_eq!(
        field("swizzle_bytes"),
        u64::from(vs.swizzle_es.unwrap_or(0))
    );
    assert_eq!(field("format_bytes"), u64::from(vs.format_es.unwrap_or(0)));
    for f in [
        VsField::Format,
        VsField::Nfmt,
        VsField::ElemSize,
        VsField::Swizzle,
    ] {
        assert_eq!(field(f.name(Profile::Gfx9)), layout.get(v, f), "{f:?}");
    }
    // The bug's case: a raw buffer (stride 0) whose lane ends exactly at
    // num_records.
    assert_eq!(vs.stride, 0);
    // Held since it was accepted.
    assert_eq!(
        vcd.value_at("tb.in.vsharp.num_records", 10 * accepted),
        vcd.value_at("tb.in.vsharp.num_records", t)
    );
    let instr = vcd.value_at("tb.in.instr", t).unwrap();
    assert!(instr.starts_with("buffer_load"), "{instr}");

    // The FST of the same run: the same signals and values.
    let report_fst = run(&f, &rtl, &fst_dir, "fst");
    assert_eq!(divergence(&report_fst).0, cycle);
    let fst = read_fst(&fst_dir.join(format!("{run_name}.fst")));
    assert_eq!(fst_at(&fst, &own("model"), t), m.to_string());
    assert_eq!(fst_at(&fst, &own("rtl"), t), r.to_string());
    let nr = fst_at(&fst, "tb.in.vsharp.num_records [31:0]", t);
    assert_eq!(
        u64::from_str_radix(nr, 2).unwrap(),
        u64::from(vs.num_records)
    );
    assert_eq!(fst_at(&fst, "tb.in.instr", t), instr.replace("\\x20", " "));

    // The sessions: the lane's own signal first (model, RTL), then its
    // address, then the port whole.
    let addr = 4 * lane + dword;
    for (d, ext) in [(&vcd_dir, "vcd"), (&fst_dir, "fst")] {
        let g = std::fs::read_to_string(d.join(format!("{run_name}.gtkw"))).unwrap();
        assert!(g.contains(&format!("[dumpfile] \"{run_name}.{ext}\"")));
        let traces = gtkw_traces(&g);
        let group = traces.iter().position(|l| *l == "-lane_inrange_o").unwrap();
        let label = |side: &str| format!("{side} lane_inrange_o lane{lane} dword{dword}");
        assert_eq!(
            traces[group + 1..group + 8],
            [
                "+{mismatch lane_inrange_o} tb.mismatch.lane_inrange_o".to_string(),
                format!("+{{{}}} {}", label("model"), own("model")),
                format!("+{{{}}} {}", label("rtl"), own("rtl")),
                format!("+{{model lane_addr_o[{addr}]}} tb.model.lane_addr_o[{addr}][47:0]"),
                format!("+{{rtl lane_addr_o[{addr}]}} tb.rtl.lane_addr_o[{addr}][47:0]"),
                "+{model lane_inrange_o} tb.model.lane_inrange_o[255:0]".to_string(),
                "+{rtl lane_inrange_o} tb.rtl.lane_inrange_o[255:0]".to_string(),
            ],
            "{ext}"
        );
        let s = std::fs::read_to_string(d.join(format!("{run_name}.sucl"))).unwrap();
        let adds: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("variable_add "))
            .collect();
        let i = adds
            .iter()
            .position(|a| *a == "tb.mismatch.lane_inrange_o")
            .unwrap();
        assert_eq!(adds[i + 1], own("model"));
        assert_eq!(adds[i + 2], own("rtl"));
    }

    // GTKWave shows it so, on the VCD and the FST.
    if !can_run_gtkwave() {
        return;
    }
    for (d, ext) in [(&vcd_dir, "vcd"), (&fst_dir, "fst")] {
        let gtkw = d.join(format!("{run_name}.gtkw"));
        let shown = gtkwave_traces(&gtkw, dir.path());
        let names: Vec<&str> = shown.iter().map(|(n, _)| n.as_str()).collect();
        let first = names.iter().position(|n| *n == "lane_inrange_o").unwrap();
        assert_eq!(
            names[first + 1..first + 4],
            [
                "mismatch lane_inrange_o".to_string(),
                format!("model lane_inrange_o lane{lane} dword{dword}"),
                format!("rtl lane_inrange_o lane{lane} dword{dword}"),
            ],
            "{ext}: {names:?}"
        );
        // Their values at the marker (the divergence).
        assert_eq!(shown[first + 2].1, m.to_string(), "{ext}");
        assert_eq!(shown[first + 3].1, r.to_string(), "{ext}");
        let instr_shown = &shown[names.iter().position(|n| *n == "instr").unwrap()].1;
        assert!(
            instr_shown.starts_with("buffer_load"),
            "{ext}: {instr_shown}"
        );
    }
    // The screenshot the README shows, made the same way.
    if on_path("import") {
        let png = dir.path().join("shot.png");
        let st = Command::new(repo_root().join("docs/screenshot.sh"))
            .arg(vcd_dir.join(format!("{run_name}.gtkw")))
            .arg(&png)
            .status()
            .unwrap();
        assert!(st.success());
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // 1600 x 900, the size the session asks for.
        let wh = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!((wh(16), wh(20)), (1600, 900));
    } else {
        println!("no screenshot: ImageMagick's import is not on PATH");
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Skips (printing a line) when GTKWave cannot be run here, unless
/// `GPUCOSIM_REQUIRE_GTKWAVE=1` (CI) makes that a failure.
fn can_run_gtkwave() -> bool {
    let ok = on_path("gtkwave") && on_path("xvfb-run");
    if !ok {
        gpucosim_testkit::skip(
            "GPUCOSIM_REQUIRE_GTKWAVE",
            "gtkwave",
            "gtkwave or xvfb-run is not on PATH",
        );
    }
    ok
}

/// Opens `gtkw` in GTKWave under Xvfb (default settings) and returns its
/// traces as displayed, each with its value at the marker.
fn gtkwave_traces(gtkw: &Path, scratch: &Path) -> Vec<(String, String)> {
    let work: PathBuf = tempfile::tempdir_in(scratch).unwrap().keep();
    let home = work.join("home");
    std::fs::create_dir(&home).unwrap();
    let out = work.join("traces.txt");
    let script = work.join("report.tcl");
    // Run every 300 ms once the main loop is up; the third run, after the
    // session's view is drawn, writes the traces and quits.
    std::fs::write(
        &script,
        format!(
            r#"if {{![info exists ::runs]}} {{ set ::runs 0 }}
incr ::runs
if {{$::runs == 3}} {{
    set f [open {{{out}}} w]
    set n [gtkwave::getTotalNumTraces]
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts $f "[gtkwave::getTraceNameFromIndex $i]\t[gtkwave::getTraceValueAtMarkerFromIndex $i]"
    }}
    close $f
    gtkwave::/File/Quit
}}
"#,
            out = out.display()
        ),
    )
    .unwrap();
    let log = std::fs::File::create(work.join("gtkwave.log")).unwrap();
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x900x24", "gtkwave", "-R"])
        .arg(&script)
        .args(["-P", "300"])
        .arg(gtkw)
        .env("HOME", &home)
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .process_group(0)
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            assert!(st.success(), "gtkwave exited with {st}");
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            // The group id is the child's pid (process_group(0)).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!("GTKWave did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| {
            let (n, v) = l.split_once('\t').unwrap_or((l, ""));
            (n.to_string(), v.to_string())
        })
        .collect()
}
