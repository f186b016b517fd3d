//! Opens a written session in GTKWave under a virtual X server and reads back,
//! through GTKWave's Tcl API, what it shows: the dump file it found (from
//! another working directory), the marker, the window, and the traces with
//! the names GTKWave displays. Skipped (with a line saying so) when
//! `gtkwave` or `xvfb-run` is not on `PATH`.

mod common;

use gpucosim_waves::session::{write_sessions, View};
use gpucosim_waves::{write_capture, Capture, Layout, Meta};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

gpucosim_model::ports! {
    mod toy("toy", "toy_top") {
        input rst_ni: 1,
        input exec_i: 64,
        input vsharp_i: 128,
        input d_i: 8 x 3,
        output ready_o: 1,
        output lane_addr_o: 48 x 20,
        output mask_o: 32,
        output q_o: 8,
    }
}

/// How long GTKWave may take before the test gives up on it.
const TIMEOUT: Duration = Duration::from_secs(60);

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Runs `cmd` in its own process group; kills the whole group (the X
/// server, GTKWave) if it has not finished after [`TIMEOUT`].
fn run_bounded(mut cmd: Command, log: &Path) -> Result<(), String> {
    let out = std::fs::File::create(log).unwrap();
    let err = out.try_clone().unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start xvfb-run: {e}"))?;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("xvfb-run gtkwave exited with {status}"))
            };
        }
        if start.elapsed() > TIMEOUT {
            // The group id is the child's pid (process_group(0)).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            return Err(format!(
                "GTKWave did not finish within {} s; killed",
                TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the Tcl script reports, one `key value` per line.
struct Report {
    lines: Vec<String>,
}

impl Report {
    fn get(&self, key: &str) -> &str {
        self.lines
            .iter()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no {key} in the report:\n{}", self.lines.join("\n")))
    }

    fn num(&self, key: &str) -> i64 {
        self.get(key).parse().unwrap()
    }

    /// The traces: (flags, displayed name).
    fn traces(&self) -> Vec<(u64, String)> {
        self.lines
            .iter()
            .filter_map(|l| l.strip_prefix("trace "))
            .map(|l| {
                let mut parts = l.splitn(3, ' ');
                let _index = parts.next();
                let flags = parts.next().unwrap().parse().unwrap();
                (flags, parts.next().unwrap_or("").to_string())
            })
            .collect()
    }
}

/// One GTKWave at a time: `xvfb-run -a` picks a free display number by
/// looking for lock files, which races when servers start together.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Opens `gtkw` in GTKWave from `cwd` and returns what the Tcl API says.
fn gtkwave_report(gtkw: &Path, cwd: &Path, home: &Path) -> Report {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = gtkw.parent().unwrap();
    let out = dir.join("report.txt");
    let script = dir.join("report.tcl");
    // A timer-driven script (`-R`): GTKWave runs it every 300 ms once its
    // main loop is up, after the window has its size and the save file's
    // zoom is applied (a `-S` script runs before that). The third run
    // writes the report and quits.
    std::fs::write(
        &script,
        format!(
            r#"if {{![info exists ::runs]}} {{ set ::runs 0 }}
incr ::runs
if {{$::runs == 3}} {{
    set f [open {{{out}}} w]
    puts $f "dumpfile [gtkwave::getDumpFileName]"
    puts $f "marker [gtkwave::getMarker]"
    puts $f "start [gtkwave::getWindowStartTime]"
    puts $f "end [gtkwave::getWindowEndTime]"
    puts $f "wavewidth [gtkwave::getWaveWidth]"
    puts $f "visible [gtkwave::getVisibleNumTraces]"
    set n [gtkwave::getTotalNumTraces]
    puts $f "total $n"
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts $f "trace $i [gtkwave::getTraceFlagsFromIndex $i] [gtkwave::getTraceNameFromIndex $i]"
    }}
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts $f "tvalue $i [gtkwave::getTraceValueAtMarkerFromIndex $i]"
    }}
    puts $f "displayed [gtkwave::getDisplayedSignals]"
    close $f
    gtkwave::/File/Quit
}}
"#,
            out = out.display()
        ),
    )
    .unwrap();
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["-a", "-s", "-screen 0 1600x900x24", "gtkwave", "-R"])
        .arg(&script)
        .args(["-P", "300"])
        .arg(gtkw)
        .current_dir(cwd)
        // No ~/.gtkwaverc of the user's: GTKWave's defaults.
        .env("HOME", home);
    let log = dir.join("gtkwave.log");
    if let Err(e) = run_bounded(cmd, &log) {
        panic!(
            "{e}\n--- log ---\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "GTKWave wrote no report ({e})\n--- log ---\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    Report {
        lines: text.lines().map(str::to_string).collect(),
    }
}

/// A VCD of cycles 100 to 199 in `dir`, with its sessions focused on
/// cycle `focus`; returns the GTKWave session.
fn bundle(dir: &Path, focus: u64) -> PathBuf {
    let table = &toy::TABLE;
    let mut cap = Capture::new(table, 100);
    for c in 100..200u64 {
        let i = vec![c as u32; table.in_words()];
        let m = vec![c as u32; table.out_words()];
        let mut r = m.clone();
        if c >= 140 {
            r[1] ^= 0x10;
        }
        cap.record(c, &i, &m, &r);
    }
    let vcd = dir.join("toy.gfx9.3.vcd");
    write_capture(
        &vcd,
        table,
        &cap,
        &Meta::default(),
        gpucosim_waves::WaveFormat::Vcd,
    )
    .unwrap();
    let layout = Layout::new(table);
    let view = View {
        layout: &layout,
        focus,
        window: (100, 199),
        diverging: vec![("lane_addr_o".into(), vec![17])],
        binary: vec!["exec_i".into(), "mask_o".into()],
        items: Vec::new(),
        title: "toy.gfx9.3: divergence at cycle 140".into(),
    };
    let paths = write_sessions(&vcd, &view).unwrap();
    paths[0].clone()
}

#[test]
fn gtkwave_shows_the_session() {
    if !can_run_gtkwave() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (first, moved, cwd, home) = (
        tmp.path().join("bundle"),
        tmp.path().join("moved"),
        tmp.path().join("elsewhere"),
        tmp.path().join("home"),
    );
    for d in [&first, &cwd, &home] {
        std::fs::create_dir(d).unwrap();
    }
    bundle(&first, 140);
    // Bundles get moved: open it where it was not written, from a working
    // directory that holds neither file.
    std::fs::rename(&first, &moved).unwrap();
    let gtkw = moved.join("toy.gfx9.3.gtkw");
    let r = gtkwave_report(&gtkw, &cwd, &home);

    assert_eq!(Path::new(r.get("dumpfile")), moved.join("toy.gfx9.3.vcd"));
    assert_eq!(r.num("marker"), 1400, "the marker on the focus");
    assert_eq!(r.num("start"), 1240, "16 cycles before the focus");
    let span = r.num("end") - r.num("start");
    assert!(
        (320..=400).contains(&span),
        "{span} ns shown (wave pane {} px)",
        r.get("wavewidth")
    );

    // The names as GTKWave displays them (its default `hier_max_level` is
    // 1: the last level of a name, with the declared range appended, so
    // element 17 of an array port is `lane_addr_o[17][47:0]` and the
    // 128-bit port `vsharp_i[127:0]`). Model, RTL and mismatch traces
    // carry their labels.
    let traces = r.traces();
    let names: Vec<&str> = traces.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(
        names[..8],
        [
            "clk",
            "cycle",
            "mismatch any",
            "lane_addr_o",
            "mismatch lane_addr_o",
            "model lane_addr_o[17]",
            "rtl lane_addr_o[17]",
            "lane_addr_o other elements",
        ]
    );
    for n in [
        "model lane_addr_o[0]",
        "rtl lane_addr_o[19]",
        "mask_o",
        "model mask_o",
        "rtl q_o",
        "inputs",
        "exec_i[63:0]",
        "vsharp_i[127:0]",
        "d_i",
        "d_i[0][7:0]",
        "d_i[2][7:0]",
    ] {
        assert!(names.contains(&n), "{n} not shown: {names:?}");
    }
    // Radix: hex for data, binary for masks and bits, decimal for the cycle
    // (with GTKWave's right justification).
    let flags = |name: &str| traces.iter().find(|(_, n)| n == name).unwrap().0;
    assert_eq!(flags("model lane_addr_o[17]"), 0x22);
    assert_eq!(flags("vsharp_i[127:0]"), 0x22);
    assert_eq!(flags("model mask_o"), 0x28);
    assert_eq!(flags("exec_i[63:0]"), 0x28);
    assert_eq!(flags("clk"), 0x28);
    assert_eq!(flags("cycle"), 0x24);

    // GTKWave found every signal the file names (an unknown one is
    // dropped): the full names, in file order.
    let text = std::fs::read_to_string(&gtkw).unwrap();
    let wanted: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(['[', '@', '*', '-']))
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    let displayed: Vec<&str> = r.get("displayed").split_whitespace().collect();
    assert_eq!(displayed, wanted);
    assert!(displayed.contains(&"tb.model.lane_addr_o[17][47:0]"));
    assert!(displayed.contains(&"tb.in.vsharp_i[127:0]"));

    // The closed groups hide their traces: everything inside one, and its
    // end, is not visible.
    let mut depth_closed = 0;
    let mut hidden = 0;
    for (f, _) in &traces {
        let (begin, end, closed) = (f & (1 << 23) != 0, f & (1 << 24) != 0, f & (1 << 22) != 0);
        if end && closed {
            depth_closed -= 1;
            hidden += 1;
            continue;
        }
        if depth_closed > 0 {
            hidden += 1;
        }
        if begin && closed {
            depth_closed += 1;
        }
    }
    assert!(hidden > 0);
    assert_eq!(r.num("visible"), r.num("total") - hidden);
}

/// A toy waveform with decoded signals (`common`), in `format`, with its
/// sessions on a divergence of `mask_o` on lanes 3 and 9; returns the
/// GTKWave session.
fn decoded_bundle(dir: &Path, format: gpucosim_waves::WaveFormat) -> PathBuf {
    let all = common::frames(0, 400, 250);
    let cap = common::capture(&all, 300);
    let layout = common::layout();
    let path = dir.join(format!("toy.gfx9.1.{format}"));
    gpucosim_waves::write_capture_with(&path, &layout, &cap, &Meta::default(), format).unwrap();
    write_sessions(&path, &common::view(&layout, 3)).unwrap()[0].clone()
}

/// GTKWave opens the session of a mask's divergence with the diverging
/// lane's own one-bit signals first (model and RTL), then what the decoder
/// says of that lane, then the port whole; it finds every decoded signal
/// of the VCD and of the FST, and shows the text of the instruction.
#[test]
fn gtkwave_shows_the_diverging_lane_first() {
    if !can_run_gtkwave() {
        return;
    }
    for format in gpucosim_waves::WaveFormat::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, home) = (tmp.path().join("b"), tmp.path().join("home"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::create_dir(&home).unwrap();
        let gtkw = decoded_bundle(&dir, format);
        let r = gtkwave_report(&gtkw, tmp.path(), &home);
        assert_eq!(r.num("marker"), 2500, "{format}");
        let traces = r.traces();
        let names: Vec<&str> = traces.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names[..12],
            [
                "clk",
                "cycle",
                "mismatch any",
                "instr",
                "mask_o",
                "mismatch mask_o",
                "model mask_o lane3",
                "rtl mask_o lane3",
                "model lanes lane3 acc",
                "rtl lanes lane3 acc",
                "model mask_o lane9",
                "rtl mask_o lane9",
            ],
            "{format}"
        );
        // Every signal the session names was found.
        let text = std::fs::read_to_string(&gtkw).unwrap();
        let wanted: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(['[', '@', '*', '-']))
            .map(|l| l.rsplit(' ').next().unwrap())
            .collect();
        let displayed: Vec<&str> = r.get("displayed").split_whitespace().collect();
        assert_eq!(displayed, wanted, "{format}");
        // The values at the marker, by the trace's name: the lane differs,
        // the text and the number read back.
        let value = |name: &str| {
            let i = names.iter().position(|n| *n == name).unwrap();
            r.lines
                .iter()
                .find_map(|l| l.strip_prefix(&format!("tvalue {i} ")))
                .unwrap_or_else(|| panic!("no value of {name}"))
                .to_string()
        };
        assert_eq!(value("model mask_o lane3"), "0", "{format}");
        assert_eq!(value("rtl mask_o lane3"), "1", "{format}");
        let all = common::frames(0, 400, 250);
        let mut held = "?".to_string();
        for (_, i, _, _) in &all[100..=250] {
            let v = common::toy::v_i.get(i);
            if v >> 31 & 1 != 0 {
                held = common::text(v);
            }
        }
        assert_eq!(value("instr"), held, "{format}");
        let lo = common::toy::v_i.get(&all[250].1) & 0xff;
        assert_eq!(value("fields lo"), lo.to_string(), "{format}");
    }
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

/// Near the end of the file the view ends before it (GTKWave would
/// otherwise ignore the start time and show the file from its beginning),
/// and the marker is still in view.
#[test]
fn gtkwave_keeps_the_start_near_the_end() {
    if !can_run_gtkwave() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, home) = (tmp.path().join("b"), tmp.path().join("home"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::create_dir(&home).unwrap();
    // The engine's default: 8 cycles after the divergence.
    let gtkw = bundle(&dir, 191);
    let r = gtkwave_report(&gtkw, tmp.path(), &home);
    // The file ends at 1995 ns; the view, 2 cycles before it.
    assert_eq!(r.num("start"), 1995 - 360 - 20);
    assert_eq!(r.num("marker"), 1910);
    assert!(
        r.num("end") > 1910 && r.num("end") <= 1995,
        "end {}",
        r.get("end")
    );
}

/// A VCD as Verilator's tracing writes it, over cycles 100 to 199.
fn verilator_vcd(path: &Path) {
    let mut text = String::from(
        "$version Generated by VerilatedVcd $end
$timescale 1ns $end
 $scope module TOP $end
  $var wire  1 # clk_i $end
  $var wire  1 $ rst_ni $end
  $scope module toy_top $end
   $var wire  1 # clk_i $end
   $var wire  1 $ rst_ni $end
   $var wire 64 % exec_i [63:0] $end
   $var wire 960 & lane_addr_o [959:0] $end
   $var wire  3 ' state_q [2:0] $end
   $scope module u_sub $end
    $var wire  1 ( busy $end
   $upscope $end
  $upscope $end
 $upscope $end
$enddefinitions $end
",
    );
    for c in 100..200u64 {
        text += &format!(
            "#{}\n0#\n1$\nb{:b} %\nb{:b} &\nb{:b} '\n{}(\n#{}\n1#\n",
            c * 10,
            c,
            c * 3,
            c % 8,
            c % 2,
            c * 10 + 5
        );
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn gtkwave_shows_the_trace_session() {
    if !can_run_gtkwave() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, home) = (tmp.path().join("b"), tmp.path().join("home"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::create_dir(&home).unwrap();
    let vcd = dir.join("toy.gfx9.3.rtl.vcd");
    verilator_vcd(&vcd);
    let paths = gpucosim_waves::session::write_trace_sessions(
        &vcd,
        "toy_top",
        140,
        (100, 199),
        "toy.gfx9.3: RTL signals, divergence at cycle 140",
    )
    .unwrap();
    let r = gtkwave_report(&paths[0], tmp.path(), &home);
    assert_eq!(Path::new(r.get("dumpfile")), vcd);
    assert_eq!(r.num("marker"), 1400);
    assert_eq!(r.num("start"), 1240);
    let names: Vec<String> = r.traces().into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        names,
        [
            "clk_i",
            "rst_ni",
            "exec_i[63:0]",
            "lane_addr_o[959:0]",
            "state_q[2:0]"
        ]
    );
    assert_eq!(
        r.get("displayed").split_whitespace().collect::<Vec<_>>(),
        [
            "TOP.toy_top.clk_i",
            "TOP.toy_top.rst_ni",
            "TOP.toy_top.exec_i[63:0]",
            "TOP.toy_top.lane_addr_o[959:0]",
            "TOP.toy_top.state_q[2:0]"
        ]
    );
}

/// Every signal and scope the Surfer command file names exists in the VCD
/// as Surfer reads it: through `wellen`, the reader Surfer is built on (its
/// Python binding, `pip install pywellen`). Array elements are scopes of
/// their own there (`tb.model.lane_addr_o.[17]`). Skipped (saying so)
/// without `pywellen`, unless `GPUCOSIM_REQUIRE_WELLEN=1`.
#[test]
fn surfer_names_exist_as_wellen_reads_the_vcd() {
    let probe = Command::new("python3")
        .args(["-c", "import pywellen"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        gpucosim_testkit::skip(
            "GPUCOSIM_REQUIRE_WELLEN",
            "surfer_names_exist_as_wellen_reads_the_vcd",
            "python3 cannot import pywellen",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plain = bundle(dir.path(), 140);
    let decoded: Vec<PathBuf> = gpucosim_waves::WaveFormat::ALL
        .into_iter()
        .map(|f| {
            let d = dir.path().join(f.extension());
            std::fs::create_dir(&d).unwrap();
            decoded_bundle(&d, f)
        })
        .collect();
    for gtkw in std::iter::once(&plain).chain(&decoded) {
        let sucl = gtkw.with_extension("sucl");
        let wave = if gtkw == &plain {
            gtkw.with_extension("vcd")
        } else {
            let fst = gtkw.with_extension("fst");
            if fst.exists() {
                fst
            } else {
                gtkw.with_extension("vcd")
            }
        };
        let script = r#"
import sys, pywellen
w = pywellen.Waveform(sys.argv[1])
for v in w.all_vars():
    print("var", v.full_name)
    if v.is_string:
        print("text", v.full_name, repr(v.signal.value_at(2500)))
for s in w.all_scopes():
    print("scope", s.full_name)
"#;
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(&wave)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let seen = String::from_utf8(out.stdout).unwrap();
        let vars: Vec<&str> = seen
            .lines()
            .filter_map(|l| l.strip_prefix("var "))
            .collect();
        let scopes: Vec<&str> = seen
            .lines()
            .filter_map(|l| l.strip_prefix("scope "))
            .collect();
        if gtkw == &plain {
            assert!(vars.contains(&"tb.model.lane_addr_o.[17]"), "{seen}");
        } else {
            // The decoded signals, the text read as a string.
            assert!(vars.contains(&"tb.model.mask_o.lane3"), "{seen}");
            assert!(vars.contains(&"tb.rtl.lanes.lane3.acc"), "{seen}");
            assert!(
                seen.lines()
                    .any(|l| l.starts_with("text tb.in.instr '") && !l.ends_with("None")),
                "{seen}"
            );
        }
        let text = std::fs::read_to_string(&sucl).unwrap();
        let mut checked = 0;
        for line in text.lines() {
            let Some((cmd, arg)) = line.split_once(' ') else {
                continue;
            };
            match cmd {
                "variable_add" => assert!(vars.contains(&arg), "Surfer has no variable {arg}"),
                "scope_add"
                | "scope_add_as_group"
                | "scope_add_as_group_recursive"
                | "scope_select" => {
                    assert!(scopes.contains(&arg), "Surfer has no scope {arg}")
                }
                _ => continue,
            }
            checked += 1;
        }
        assert!(checked > 10, "{text}");
    }
}
