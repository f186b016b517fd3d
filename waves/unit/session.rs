use gpucosim_waves::session::*;
use gpucosim_waves::Layout;
use gpucosim_waves::{write_capture, Capture, Meta};
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

gpucosim_model::ports! {
    mod toy("toy", "toy_top") {
        input rst_ni: 1,
        input exec_i: 64,
        input vsharp_i: 128,
        input d_i: 8 x 3,
        input w_i: 1 x 4,
        output ready_o: 1,
        output lane_addr_o: 48 x 20,
        output mask_o: 32,
        output wide_o: 128,
        output q_o: 8,
    }
}

/// A VCD of cycles 100 to 160 of the toy table.
fn toy_vcd(dir: &Path) -> PathBuf {
    let table = &toy::TABLE;
    let mut cap = Capture::new(table, 64);
    for c in 100..=160u64 {
        let i = vec![c as u32; table.in_words()];
        let m = vec![c as u32; table.out_words()];
        let mut r = m.clone();
        if c >= 120 {
            r[0] ^= 1;
        }
        cap.record(c, &i, &m, &r);
    }
    let path = dir.join("toy.gfx9.7.vcd");
    write_capture(
        &path,
        table,
        &cap,
        &Meta::default(),
        gpucosim_waves::WaveFormat::Vcd,
    )
    .unwrap();
    path
}

fn toy_view(layout: &Layout) -> View<'_> {
    View {
        layout,
        focus: 120,
        window: (100, 160),
        diverging: vec![
            ("lane_addr_o".into(), vec![17, 3]),
            ("mask_o".into(), vec![]),
        ],
        binary: vec!["exec_i".into(), "mask_o".into()],
        items: Vec::new(),
        title: "toy.gfx9.7: divergence at cycle 120".into(),
    }
}

/// Every variable of a VCD: its scope path and declaration.
fn header_vars(vcd: &Path) -> Vec<(String, vcd::Var)> {
    fn walk(items: &[vcd::ScopeItem], path: &str, out: &mut Vec<(String, vcd::Var)>) {
        for item in items {
            match item {
                vcd::ScopeItem::Scope(s) => {
                    let p = if path.is_empty() {
                        s.identifier.clone()
                    } else {
                        format!("{path}.{}", s.identifier)
                    };
                    walk(&s.items, &p, out);
                }
                vcd::ScopeItem::Var(v) => out.push((path.to_string(), v.clone())),
                _ => {}
            }
        }
    }
    let f = std::fs::File::open(vcd).unwrap();
    let header = vcd::Parser::new(io::BufReader::new(f))
        .parse_header()
        .unwrap();
    let mut out = Vec::new();
    walk(&header.items, "", &mut out);
    out
}

/// The names GTKWave gives the variables of a VCD: path, reference and
/// the declared index.
fn gtkwave_names(vcd: &Path) -> HashSet<String> {
    header_vars(vcd)
        .into_iter()
        .map(|(p, v)| {
            let index = v.index.map(|i| i.to_string()).unwrap_or_default();
            format!("{p}.{}{index}", v.reference)
        })
        .collect()
}

/// The variables and scopes Surfer (through `wellen`) sees in a VCD: a
/// reference wider than one bit ending in `[n]` is variable `[n]` of a
/// scope named after the rest.
fn surfer_names(vcd: &Path) -> (HashSet<String>, HashSet<String>) {
    let (mut vars, mut scopes) = (HashSet::new(), HashSet::new());
    for (p, v) in header_vars(vcd) {
        let mut scope = String::new();
        for part in p.split('.') {
            if !scope.is_empty() {
                scope.push('.');
            }
            scope.push_str(part);
            scopes.insert(scope.clone());
        }
        let r = &v.reference;
        match r.rfind('[') {
            Some(i) if v.size > 1 && i > 0 && r.ends_with(']') => {
                scopes.insert(format!("{p}.{}", &r[..i]));
                vars.insert(format!("{p}.{}.{}", &r[..i], &r[i..]));
            }
            _ => {
                vars.insert(format!("{p}.{r}"));
            }
        }
    }
    (vars, scopes)
}

/// A .gtkw's traces in order: (flags in force, label, name).
fn gtkw_traces(text: &str) -> Vec<(u64, Option<String>, String)> {
    let mut flags = 0;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(f) = line.strip_prefix('@') {
            flags = u64::from_str_radix(f, 16).unwrap();
        } else if let Some(rest) = line.strip_prefix("+{") {
            let (label, name) = rest.split_once("} ").unwrap();
            out.push((flags, Some(label.to_string()), name.to_string()));
        } else if let Some(name) = line.strip_prefix('-') {
            out.push((flags, None, format!("-{name}")));
        } else if !line.starts_with(['[', '*']) && !line.is_empty() {
            out.push((flags, None, line.to_string()));
        }
    }
    out
}

fn value<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no {key} in\n{text}"))
        .trim()
}

#[test]
fn gtkwave_file_names_the_vcd_and_its_signals() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = toy_vcd(dir.path());
    let layout = Layout::new(&toy::TABLE);
    let paths = write_sessions(&vcd, &toy_view(&layout)).unwrap();
    assert_eq!(
        paths,
        [
            dir.path().join("toy.gfx9.7.gtkw"),
            dir.path().join("toy.gfx9.7.sucl")
        ]
    );
    let text = std::fs::read_to_string(&paths[0]).unwrap();
    assert_eq!(value(&text, "[dumpfile]"), "\"toy.gfx9.7.vcd\"");
    assert_eq!(value(&text, "[savefile]"), "\"toy.gfx9.7.gtkw\"");
    // 16 cycles before the focus; the marker on it.
    assert_eq!(value(&text, "[timestart]"), "1040");
    let zoom_marker: Vec<&str> = value(&text, "*").split(' ').collect();
    assert_eq!(zoom_marker[1], "1200");
    assert!(text.starts_with("[*] toy.gfx9.7: divergence at cycle 120\n"));

    let known = gtkwave_names(&vcd);
    let traces = gtkw_traces(&text);
    for (_, _, name) in &traces {
        assert!(
            name.starts_with('-') || known.contains(name),
            "{name} not in the VCD"
        );
    }
    let names: Vec<&str> = traces.iter().map(|(_, _, n)| n.as_str()).collect();
    assert_eq!(
        names[..12],
        [
            "tb.clk",
            "tb.cycle",
            "tb.mismatch.any",
            "-lane_addr_o",
            "tb.mismatch.lane_addr_o",
            "tb.model.lane_addr_o[17][47:0]",
            "tb.rtl.lane_addr_o[17][47:0]",
            "tb.model.lane_addr_o[3][47:0]",
            "tb.rtl.lane_addr_o[3][47:0]",
            "-lane_addr_o other elements",
            "tb.model.lane_addr_o[0][47:0]",
            "tb.rtl.lane_addr_o[0][47:0]",
        ]
    );
    // Groups in order: the diverging ports, the other outputs, the inputs.
    let groups: Vec<&str> = traces
        .iter()
        .filter(|(f, _, _)| f & flag::GRP_BEGIN != 0)
        .map(|(_, _, n)| &n[1..])
        .collect();
    assert_eq!(
        groups,
        [
            "lane_addr_o",
            "lane_addr_o other elements",
            "mask_o",
            "ready_o",
            "wide_o",
            "q_o",
            "inputs",
            "d_i",
            "w_i",
        ]
    );
    // Every group closes, in nesting order, and the closed ones say so.
    let mut open: Vec<(&str, u64)> = Vec::new();
    for (f, _, n) in &traces {
        if f & flag::GRP_BEGIN != 0 {
            open.push((n, f & flag::CLOSED));
        } else if f & flag::GRP_END != 0 {
            let (name, closed) = open.pop().unwrap();
            assert_eq!((name, closed), (n.as_str(), f & flag::CLOSED));
        }
    }
    assert!(open.is_empty());
    let closed: Vec<&str> = traces
        .iter()
        .filter(|(f, _, _)| f & flag::GRP_BEGIN != 0 && f & flag::CLOSED != 0)
        .map(|(_, _, n)| &n[1..])
        .collect();
    assert_eq!(
        closed,
        [
            "lane_addr_o other elements",
            "ready_o",
            "wide_o",
            "q_o",
            "d_i",
            "w_i"
        ]
    );

    // Radix and labels.
    let of = |name: &str| traces.iter().find(|(_, _, n)| n == name).unwrap();
    let bin = flag::BIN | flag::RJUSTIFY;
    let hex = flag::HEX | flag::RJUSTIFY;
    assert_eq!(of("tb.cycle").0, flag::DEC | flag::RJUSTIFY);
    assert_eq!(of("tb.clk").0, bin);
    assert_eq!(of("tb.model.mask_o[31:0]").0, bin);
    assert_eq!(of("tb.in.exec_i[63:0]").0, bin);
    assert_eq!(of("tb.in.vsharp_i[127:0]").0, hex);
    assert_eq!(of("tb.rtl.wide_o[127:0]").0, hex);
    assert_eq!(of("tb.in.w_i[2]").0, bin);
    assert_eq!(of("tb.in.d_i[2][7:0]").0, hex);
    assert_eq!(
        of("tb.rtl.lane_addr_o[3][47:0]").1.as_deref(),
        Some("rtl lane_addr_o[3]")
    );
    assert_eq!(of("tb.model.q_o[7:0]").1.as_deref(), Some("model q_o"));
    assert_eq!(of("tb.mismatch.q_o").1.as_deref(), Some("mismatch q_o"));
    // Each output variable once, both sides; each input once.
    let layout_names: HashSet<String> = layout
        .vars
        .iter()
        .map(|v| Sig::of_var(v).gtkwave())
        .collect();
    let shown: Vec<&String> = traces
        .iter()
        .map(|(_, _, n)| n)
        .filter(|n| {
            n.starts_with("tb.in.") || n.starts_with("tb.model.") || n.starts_with("tb.rtl.")
        })
        .collect();
    assert_eq!(shown.len(), layout_names.len());
    assert_eq!(
        shown.into_iter().cloned().collect::<HashSet<_>>(),
        layout_names
    );
}

#[test]
fn surfer_file_uses_known_commands_and_variables() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = toy_vcd(dir.path());
    let layout = Layout::new(&toy::TABLE);
    let paths = write_sessions(&vcd, &toy_view(&layout)).unwrap();
    assert_eq!(paths[1].extension().unwrap(), "sucl");
    let text = std::fs::read_to_string(&paths[1]).unwrap();
    assert!(text.contains("surfer toy.gfx9.7.vcd -c toy.gfx9.7.sucl"));
    let (vars, scopes) = surfer_names(&vcd);
    let mut cmds = Vec::new();
    for line in text.lines() {
        // Surfer drops what follows `#` and splits commands at `;`.
        let line = line.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        assert!(!line.contains(';'), "{line}");
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        assert!(SURFER_COMMANDS.contains(&cmd), "unknown command {cmd}");
        match cmd {
            "variable_add" => assert!(vars.contains(arg), "{arg} not in the VCD"),
            "scope_add_as_group" => assert!(scopes.contains(arg), "{arg} not in the VCD"),
            // Surfer takes one word (`\w+`) as a divider's name.
            "divider_add" => {
                assert!(arg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            }
            _ => {}
        }
        cmds.push((cmd, arg));
    }
    let adds: Vec<&str> = cmds
        .iter()
        .filter(|(c, _)| *c == "variable_add" || *c == "divider_add")
        .map(|(_, a)| *a)
        .collect();
    assert_eq!(
        adds[..12],
        [
            "tb.clk",
            "tb.cycle",
            "tb.mismatch.any",
            "lane_addr_o",
            "tb.mismatch.lane_addr_o",
            "tb.model.lane_addr_o.[17]",
            "tb.rtl.lane_addr_o.[17]",
            "tb.model.lane_addr_o.[3]",
            "tb.rtl.lane_addr_o.[3]",
            "mask_o",
            "tb.mismatch.mask_o",
            "tb.model.mask_o",
        ]
    );
    assert!(adds.contains(&"tb.in.w_i[3]"));
    // The mask in binary, the cycle in decimal: the format follows the add.
    let after = |arg: &str| {
        let i = cmds
            .iter()
            .position(|(c, a)| *c == "variable_add" && *a == arg)
            .unwrap();
        cmds[i + 1]
    };
    assert_eq!(after("tb.model.mask_o"), ("item_set_format", "Binary"));
    assert_eq!(after("tb.rtl.mask_o"), ("item_set_format", "Binary"));
    assert_eq!(after("tb.in.exec_i"), ("item_set_format", "Binary"));
    assert_eq!(after("tb.cycle"), ("item_set_format", "Unsigned"));
    let hex = ("item_set_format", "Hexadecimal");
    assert_eq!(after("tb.rtl.lane_addr_o.[3]"), hex);
    assert_eq!(after("tb.in.vsharp_i"), hex);
    assert_eq!(after("tb.mismatch.any"), ("item_set_color", "Red"));
    assert_eq!(cmds[1], ("item_focus", "a"));
    // Array ports whole, at the end, folded.
    let groups: Vec<&str> = cmds
        .iter()
        .filter(|(c, _)| *c == "scope_add_as_group")
        .map(|(_, a)| *a)
        .collect();
    assert_eq!(
        groups,
        ["tb.model.lane_addr_o", "tb.rtl.lane_addr_o", "tb.in.d_i"]
    );
    let first_group = cmds
        .iter()
        .position(|(c, _)| *c == "scope_add_as_group")
        .unwrap();
    assert_eq!(cmds[first_group - 1].0, "item_unfocus");
    // The view: fitted (0 to 1605 ns), halved twice (401 ns, 40 cycles),
    // the cursor on the focus.
    let tail: Vec<(&str, &str)> = cmds[cmds.len() - 5..].to_vec();
    assert_eq!(
        tail,
        [
            ("zoom_fit", ""),
            ("zoom_in", ""),
            ("zoom_in", ""),
            ("goto_start", ""),
            ("cursor_set", "1200")
        ]
    );
}

#[test]
fn the_frame_is_clamped_to_the_window() {
    let f = Frame::new(105, (100, 160));
    assert_eq!((f.start, f.marker, f.end), (1000, 1050, 1605));
    let f = Frame::new(9, (0, 9));
    assert_eq!((f.start, f.marker), (0, 90));
    assert_eq!(f.surfer_zoom_ins(), 0);
    // Near the end, the view stops 2 cycles short of it.
    let f = Frame::new(2000, (1000, 1500));
    assert_eq!((f.start, f.marker, f.end), (14625, 15000, 15005));
    let f = Frame::new(1492, (1000, 1500));
    assert_eq!((f.start, f.marker), (14625, 14920));
    let f = Frame::new(1470, (1000, 1500));
    assert_eq!((f.start, f.marker), (14540, 14700));
    // A file shorter than the view starts at its beginning.
    let f = Frame::new(1010, (1000, 1020));
    assert_eq!(f.start, 10000);
    // A 1024-cycle window: 10245 ns halved 5 times is 320 ns.
    assert_eq!(Frame::new(1000, (0, 1024)).surfer_zoom_ins(), 5);
    // GTKWave: 2^-zoom ns per 200 pixels, 360 ns across the pane.
    let z = Frame::new(5, (0, 9)).gtkwave_zoom();
    assert!((2f64.powf(-z) * GTKWAVE_WAVE_PX / 200.0 - 360.0).abs() < 1e-6);
}

#[test]
fn an_array_port_without_elements_and_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = toy_vcd(dir.path());
    let layout = Layout::new(&toy::TABLE);
    let mut view = toy_view(&layout);
    view.diverging = vec![
        ("lane_addr_o".into(), vec![]),
        ("q_o".into(), vec![5]),
        ("lane_addr_o".into(), vec![1]),
    ];
    let paths = write_sessions(&vcd, &view).unwrap();
    let text = std::fs::read_to_string(&paths[0]).unwrap();
    let names: Vec<String> = gtkw_traces(&text).into_iter().map(|t| t.2).collect();
    assert_eq!(
        names[3..7],
        [
            "-lane_addr_o",
            "tb.mismatch.lane_addr_o",
            "-lane_addr_o elements",
            "tb.model.lane_addr_o[0][47:0]"
        ]
    );
    // q_o is not an array: its one pair, whatever the elements say.
    let q = names.iter().position(|n| n == "-q_o").unwrap();
    assert_eq!(
        names[q..q + 5],
        [
            "-q_o",
            "tb.mismatch.q_o",
            "tb.model.q_o[7:0]",
            "tb.rtl.q_o[7:0]",
            "-q_o"
        ]
    );
    assert_eq!(names.iter().filter(|n| *n == "-lane_addr_o").count(), 2);
}

#[test]
fn bad_ports_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = toy_vcd(dir.path());
    let layout = Layout::new(&toy::TABLE);
    let mut view = toy_view(&layout);
    view.diverging = vec![("exec_i".into(), vec![])];
    let e = write_sessions(&vcd, &view).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(
        e.to_string().contains("exec_i is not an output port"),
        "{e}"
    );
    view.diverging = vec![("lane_addr_o".into(), vec![20])];
    let e = write_sessions(&vcd, &view).unwrap_err();
    assert!(
        e.to_string().contains("lane_addr_o has no element 20"),
        "{e}"
    );
    assert!(!dir.path().join("toy.gfx9.7.gtkw").exists());
}

/// A header as Verilator's VCD tracing writes it.
const VERILATOR_HEADER: &str = "$version Generated by VerilatedVcd $end
$timescale 1ns $end

 $scope module TOP $end
  $var wire  1 # clk_i $end
  $var wire  1 $ rst_ni $end
  $var wire 64 % exec_i [63:0] $end
  $scope module toy_top $end
   $var wire  1 # clk_i $end
   $var wire  1 $ rst_ni $end
   $var wire 64 % exec_i [63:0] $end
   $var wire 960 & lane_addr_o [959:0] $end
   $var wire  3 ' state_q [2:0] $end
   $var wire 32 ( mem[0] [31:0] $end
   $scope module u_sub $end
    $var wire  1 ) busy $end
   $upscope $end
  $upscope $end
 $upscope $end
$enddefinitions $end
#1000
";

#[test]
fn trace_sessions_show_the_top_instance() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("toy.gfx9.7.rtl.vcd");
    std::fs::write(&vcd, VERILATOR_HEADER).unwrap();
    let paths = write_trace_sessions(&vcd, "toy_top", 120, (100, 160), "toy: RTL").unwrap();
    assert_eq!(paths[0], dir.path().join("toy.gfx9.7.rtl.gtkw"));
    let g = std::fs::read_to_string(&paths[0]).unwrap();
    assert_eq!(value(&g, "[dumpfile]"), "\"toy.gfx9.7.rtl.vcd\"");
    assert_eq!(value(&g, "[savefile]"), "\"toy.gfx9.7.rtl.gtkw\"");
    assert_eq!(value(&g, "[timestart]"), "1040");
    assert!(g.contains("[treeopen] TOP.\n[treeopen] TOP.toy_top.\n"));
    let names: Vec<String> = gtkw_traces(&g).into_iter().map(|t| t.2).collect();
    assert_eq!(
        names,
        [
            "TOP.toy_top.clk_i",
            "TOP.toy_top.rst_ni",
            "TOP.toy_top.exec_i[63:0]",
            "TOP.toy_top.lane_addr_o[959:0]",
            "TOP.toy_top.state_q[2:0]",
            "TOP.toy_top.mem[0][31:0]",
        ]
    );
    let known = gtkwave_names(&vcd);
    assert!(names.iter().all(|n| known.contains(n)));
    let s = std::fs::read_to_string(&paths[1]).unwrap();
    let cmds: Vec<&str> = s.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        cmds,
        [
            "scope_add TOP.toy_top",
            "scope_select TOP.toy_top",
            "zoom_fit",
            "zoom_in",
            "zoom_in",
            "goto_start",
            "cursor_set 1200",
        ]
    );
    let e = write_trace_sessions(&vcd, "other_top", 120, (100, 160), "").unwrap_err();
    assert!(e.to_string().contains("no scope <root>.other_top"), "{e}");
}
