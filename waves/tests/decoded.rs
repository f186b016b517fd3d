//! Decoded signals in the waveforms: the lanes of masks and a decoder's
//! numbers and texts, read back from the VCD (with the `vcd` crate) and the
//! FST (with `fst-reader`, across blocks), the ports' VCD bytes the same as
//! without them, and the sessions showing a diverging lane first.

mod common;

use common::{capture, frames, layout, text, toy, view, Owned};
use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue, FstVarType};
use gpucosim_waves::session::write_sessions;
use gpucosim_waves::{write_capture_with, Dump, Layout, Meta, WaveFormat};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// A VCD's variables (path → code, type) and, per time, the values set
/// then (path → value as written: bits, or the text of a string).
struct VcdRead {
    vars: BTreeMap<String, (String, vcd::VarType)>,
    header: String,
    body: String,
    values: BTreeMap<u64, BTreeMap<String, String>>,
}

fn read_vcd(path: &Path) -> VcdRead {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let split = text.find("$enddefinitions $end\n").unwrap() + "$enddefinitions $end\n".len();
    let mut p = vcd::Parser::new(&bytes[..]);
    let h = p.parse_header().unwrap();
    let mut vars = BTreeMap::new();
    fn walk(
        items: &[vcd::ScopeItem],
        prefix: &str,
        out: &mut BTreeMap<String, (String, vcd::VarType)>,
    ) {
        for i in items {
            match i {
                vcd::ScopeItem::Scope(s) => {
                    walk(&s.items, &format!("{prefix}{}.", s.identifier), out)
                }
                vcd::ScopeItem::Var(v) => {
                    out.insert(
                        format!("{prefix}{}", v.reference),
                        (v.code.to_string(), v.var_type),
                    );
                }
                _ => {}
            }
        }
    }
    walk(&h.items, "", &mut vars);
    let by_code: BTreeMap<String, Vec<String>> =
        vars.iter().fold(BTreeMap::new(), |mut m, (p, (c, _))| {
            m.entry(c.clone()).or_default().push(p.clone());
            m
        });
    let mut values: BTreeMap<u64, BTreeMap<String, String>> = BTreeMap::new();
    let mut now = 0;
    for cmd in p {
        let (id, v) = match cmd.unwrap() {
            vcd::Command::Timestamp(t) => {
                now = t;
                continue;
            }
            vcd::Command::ChangeScalar(i, v) => (i, v.to_string()),
            vcd::Command::ChangeVector(i, v) => (i, v.iter().map(|b| b.to_string()).collect()),
            vcd::Command::ChangeString(i, s) => (i, unescape(&s)),
            _ => continue,
        };
        for path in &by_code[&id.to_string()] {
            values
                .entry(now)
                .or_default()
                .insert(path.clone(), v.clone());
        }
    }
    VcdRead {
        vars,
        header: text[..split].to_string(),
        body: text[split..].to_string(),
        values,
    }
}

/// A VCD string value as GTKWave reads it (`\x20` a space, `\\` a
/// backslash).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&h, 16).unwrap() as char);
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The value of every path at each time, carried over from earlier times.
fn states(
    values: &BTreeMap<u64, BTreeMap<String, String>>,
) -> BTreeMap<u64, BTreeMap<String, String>> {
    let mut now = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (t, v) in values {
        now.extend(v.clone());
        out.insert(*t, now.clone());
    }
    out
}

/// What each decoded signal must show in a frame, given the text held
/// (`None`: none yet).
fn expected(f: &Owned, held: Option<&str>) -> BTreeMap<String, String> {
    let (_, i, m, r) = f;
    let mut e = BTreeMap::new();
    for (side, buf) in [("model", m), ("rtl", r)] {
        let mask = toy::mask_o.get(buf);
        for b in 0..16 {
            e.insert(
                format!("tb.{side}.mask_o.lane{b}"),
                (mask >> b & 1).to_string(),
            );
        }
        let q = toy::q_o.get(buf);
        e.insert(
            format!("tb.{side}.lanes.lane3.acc"),
            if q.is_multiple_of(5) {
                "xxxx".to_string()
            } else {
                format!("{:04b}", q & 0xf)
            },
        );
    }
    let exec = toy::exec_i.get(i);
    for b in 0..8 {
        e.insert(format!("tb.in.exec_i.lane{b}"), (exec >> b & 1).to_string());
    }
    let v = toy::v_i.get(i);
    e.insert("tb.in.fields.lo".into(), format!("{:08b}", v & 0xff));
    e.insert("tb.in.fields.hi".into(), format!("{:012b}", v >> 8 & 0xfff));
    e.insert("tb.in.instr".into(), held.unwrap_or("?").to_string());
    e
}

/// The text held in each frame of `frames` (from the first).
fn held_texts(frames: &[Owned]) -> Vec<Option<String>> {
    let mut held = None;
    frames
        .iter()
        .map(|(_, i, _, _)| {
            let v = toy::v_i.get(i);
            if v >> 31 & 1 != 0 {
                held = Some(text(v));
            }
            held.clone()
        })
        .collect()
}

/// Bits as the VCD writes them (leading zeros dropped) widened to `w`.
fn widen(v: &str, w: usize) -> String {
    if v.len() >= w || v.contains('x') && v.len() == 1 {
        if v == "x" {
            return "x".repeat(w);
        }
        return v.to_string();
    }
    format!("{}{v}", "0".repeat(w - v.len()))
}

#[test]
fn the_ports_keep_their_bytes() {
    let all = frames(0, 400, 250);
    let cap = capture(&all, 300);
    let dir = tempfile::tempdir().unwrap();
    let (plain, dec) = (dir.path().join("plain.vcd"), dir.path().join("dec.vcd"));
    let meta = Meta {
        comments: vec!["toy".into()],
    };
    let pl = Layout::new(&toy::TABLE);
    write_capture_with(&plain, &pl, &cap, &meta, WaveFormat::Vcd).unwrap();
    write_capture_with(&dec, &layout(), &cap, &meta, WaveFormat::Vcd).unwrap();
    let (a, b) = (read_vcd(&plain), read_vcd(&dec));
    // Every variable of the ports keeps its code and type.
    for (path, v) in &a.vars {
        assert_eq!(b.vars.get(path), Some(v), "{path}");
    }
    let derived: HashSet<String> = b
        .vars
        .iter()
        .filter(|(p, _)| !a.vars.contains_key(*p))
        .map(|(_, (c, _))| c.clone())
        .collect();
    assert_eq!(derived.len(), layout().derived.len());
    // The header: the same lines, with the decoded signals' declarations
    // (and their scopes) added.
    let mut plain_lines = a.header.lines().peekable();
    for l in b.header.lines() {
        if plain_lines.peek() == Some(&l) {
            plain_lines.next();
            continue;
        }
        let added = l.starts_with("$scope module ")
            || l == "$upscope $end"
            || l.starts_with("$var ")
                && derived.contains(l.split_whitespace().nth(3).unwrap_or(""));
        assert!(added, "unexpected header line {l:?}");
    }
    assert_eq!(plain_lines.next(), None, "a port's declaration is missing");
    // The value changes: the same bytes once the decoded signals' are
    // taken out.
    let id_of = |l: &str| -> String {
        if l.starts_with(['b', 's']) {
            l.rsplit(' ').next().unwrap().to_string()
        } else {
            l[1..].to_string()
        }
    };
    let kept: String = b
        .body
        .lines()
        .filter(|l| l.starts_with('#') || !derived.contains(&id_of(l)))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(kept, a.body);
    // Texts and integers are declared as such.
    assert_eq!(b.vars["tb.in.instr"].1, vcd::VarType::String);
    assert_eq!(b.vars["tb.in.fields.lo"].1, vcd::VarType::Integer);
    assert_eq!(b.vars["tb.in.fields.hi"].1, vcd::VarType::Wire);
}

#[test]
fn decoded_values_read_back_from_the_vcd_and_the_fst() {
    let all = frames(0, 400, 250);
    let cap = capture(&all, 300);
    let window = &all[100..];
    let held = held_texts(window);
    let dir = tempfile::tempdir().unwrap();
    let (vcd, fst) = (dir.path().join("w.vcd"), dir.path().join("w.fst"));
    let l = layout();
    write_capture_with(&vcd, &l, &cap, &Meta::default(), WaveFormat::Vcd).unwrap();
    write_capture_with(&fst, &l, &cap, &Meta::default(), WaveFormat::Fst).unwrap();
    let v = states(&read_vcd(&vcd).values);
    let (kinds, f) = read_fst(&fst, None);
    let f = states(&f);
    assert_eq!(kinds["tb.in.instr"], FstVarType::GenericString);
    assert_eq!(kinds["tb.in.fields.lo"], FstVarType::Integer);
    let mut checked = 0;
    for (k, frame) in window.iter().enumerate() {
        let t = 10 * frame.0;
        for (path, want) in expected(frame, held[k].as_deref()) {
            let got = v[&t].get(&path).unwrap_or_else(|| panic!("{path} at {t}"));
            let w = want.len();
            let got_v = if path.ends_with("instr") {
                got.clone()
            } else {
                widen(got, w)
            };
            assert_eq!(got_v, want, "VCD {path} at cycle {}", frame.0);
            // The FST sets the texts at the first rising edge.
            if k == 0 && path.ends_with("instr") {
                continue;
            }
            let fst_path = if path.ends_with(".hi") {
                format!("{path} [11:0]")
            } else {
                path.clone()
            };
            let got = f[&t]
                .get(&fst_path)
                .unwrap_or_else(|| panic!("FST {fst_path} at {t}"));
            assert_eq!(*got, want, "FST {path} at cycle {}", frame.0);
            checked += 1;
        }
    }
    assert!(checked > 300 * 40, "{checked}");
    // Before the first text in the window: unknown; the divergence shows
    // on lane 3 only.
    assert_eq!(
        v[&1000]["tb.in.instr"],
        held[0].clone().unwrap_or("?".into())
    );
    assert_ne!(
        v[&2500]["tb.model.mask_o.lane3"],
        v[&2500]["tb.rtl.mask_o.lane3"]
    );
    assert_eq!(
        v[&2500]["tb.model.mask_o.lane2"],
        v[&2500]["tb.rtl.mask_o.lane2"]
    );
}

/// Reads an FST: the type of each variable (path as named) and the values
/// set at each time; only the variables whose path `only` accepts.
#[allow(clippy::type_complexity)]
fn read_fst(
    path: &Path,
    only: Option<&dyn Fn(&str) -> bool>,
) -> (
    BTreeMap<String, FstVarType>,
    BTreeMap<u64, BTreeMap<String, String>>,
) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut r = FstReader::open_and_read_time_table(file).unwrap();
    let mut scope = Vec::new();
    let (mut kinds, mut names) = (BTreeMap::new(), BTreeMap::new());
    let mut handles = Vec::new();
    r.read_hierarchy(|e| match e {
        FstHierarchyEntry::Scope { name, .. } => scope.push(name),
        FstHierarchyEntry::UpScope => {
            scope.pop();
        }
        FstHierarchyEntry::Var {
            name, handle, tpe, ..
        } => {
            let p = format!("{}.{name}", scope.join("."));
            let wanted = match only {
                Some(f) => f(&p),
                None => true,
            };
            if wanted {
                names.insert(handle.get_index(), p.clone());
                handles.push(handle);
            }
            kinds.insert(p, tpe);
        }
        _ => {}
    })
    .unwrap();
    let mut values: BTreeMap<u64, BTreeMap<String, String>> = BTreeMap::new();
    let filter = FstFilter::filter_signals(handles);
    r.read_signals(&filter, |t, h, v| {
        let FstSignalValue::String(s) = v else {
            panic!("a real value")
        };
        values.entry(t).or_default().insert(
            names[&h.get_index()].clone(),
            String::from_utf8_lossy(s).into(),
        );
    })
    .unwrap();
    (kinds, values)
}

/// A whole-run FST long enough for several blocks: the texts and numbers
/// read back in every block (a block's start values have no room for the
/// texts: they are set again at its first time step).
#[test]
fn texts_and_numbers_span_fst_blocks() {
    let all = frames(0, 120_000, 60_000);
    let held = held_texts(&all);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.fst");
    let mut d = Dump::with_layout(&path, &layout(), &Meta::default(), WaveFormat::Fst).unwrap();
    for (c, i, m, r) in &all {
        d.frame(&gpucosim_waves::Frame {
            cycle: *c,
            inputs: i,
            model: m,
            rtl: r,
        })
        .unwrap();
    }
    d.finish().unwrap();
    let watched = [
        "tb.in.instr",
        "tb.in.fields.lo",
        "tb.model.mask_o.lane3",
        "tb.rtl.mask_o.lane3",
        "tb.rtl.lanes.lane3.acc",
    ];
    let only = |p: &str| watched.contains(&p);
    let (_, values) = read_fst(&path, Some(&only));
    // Several blocks (their count is in the header).
    let bytes = std::fs::read(&path).unwrap();
    let at = 1 + 8 * 8;
    let blocks = u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
    assert!(blocks >= 2, "{blocks} value change blocks");
    let mut now: BTreeMap<String, String> = BTreeMap::new();
    let mut times = values.iter().peekable();
    let mut checked = 0;
    for (k, frame) in all.iter().enumerate() {
        let t = 10 * frame.0;
        while let Some((_, v)) = times.next_if(|(s, _)| **s <= t) {
            now.extend(v.clone());
        }
        if k == 0 {
            continue;
        }
        let want = expected(frame, held[k].as_deref());
        for p in watched {
            assert_eq!(now.get(p), want.get(p), "{p} at cycle {}", frame.0);
            checked += 1;
        }
    }
    assert_eq!(checked, 5 * (all.len() - 1));
}

/// The names of a .gtkw's traces, with labels, in order.
fn gtkw_traces(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(['[', '@', '*']) && !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_session_shows_the_diverging_lane_first() {
    let all = frames(0, 400, 250);
    let cap = capture(&all, 300);
    let dir = tempfile::tempdir().unwrap();
    let l = layout();
    for format in WaveFormat::ALL {
        let path = dir.path().join(format!("toy.gfx9.1.{format}"));
        write_capture_with(&path, &l, &cap, &Meta::default(), format).unwrap();
        let paths = write_sessions(&path, &view(&l, 3)).unwrap();
        let g = std::fs::read_to_string(&paths[0]).unwrap();
        let traces = gtkw_traces(&g);
        assert_eq!(
            traces[..14],
            [
                "tb.clk",
                "tb.cycle",
                "+{mismatch any} tb.mismatch.any",
                "+{instr} tb.in.instr",
                "-mask_o",
                "+{mismatch mask_o} tb.mismatch.mask_o",
                // The lane's own signal, both sides.
                "+{model mask_o lane3} tb.model.mask_o.lane3",
                "+{rtl mask_o lane3} tb.rtl.mask_o.lane3",
                // What the decoder says of lane 3.
                "+{model lanes lane3 acc} tb.model.lanes.lane3.acc",
                "+{rtl lanes lane3 acc} tb.rtl.lanes.lane3.acc",
                // The next diverging lane.
                "+{model mask_o lane9} tb.model.mask_o.lane9",
                "+{rtl mask_o lane9} tb.rtl.mask_o.lane9",
                // The port itself, below.
                "+{model mask_o} tb.model.mask_o[15:0]",
                "+{rtl mask_o} tb.rtl.mask_o[15:0]",
            ],
            "{format}"
        );
        // The other lanes in a closed group, then the decoded group with
        // the input's fields open.
        assert_eq!(traces[14], "-mask_o lanes");
        let fields = traces.iter().position(|t| t == "-fields").unwrap();
        assert_eq!(
            traces[fields - 1..fields + 4],
            [
                "-decoded",
                "-fields",
                "+{fields lo} tb.in.fields.lo",
                "+{fields hi} tb.in.fields.hi[11:0]",
                "-fields"
            ]
        );
        assert!(traces.contains(&"-exec_i lanes".to_string()));
        // Every signal of the file is in the session once.
        let names: Vec<&str> = traces
            .iter()
            .filter(|t| !t.starts_with('-'))
            .map(|t| t.rsplit(' ').next().unwrap())
            .collect();
        let unique: HashSet<&&str> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        let s = std::fs::read_to_string(&paths[1]).unwrap();
        let adds: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("variable_add "))
            .collect();
        assert_eq!(
            adds[..9],
            [
                "tb.clk",
                "tb.cycle",
                "tb.mismatch.any",
                "tb.in.instr",
                "tb.mismatch.mask_o",
                "tb.model.mask_o.lane3",
                "tb.rtl.mask_o.lane3",
                "tb.model.lanes.lane3.acc",
                "tb.rtl.lanes.lane3.acc",
            ]
        );
        for scope in ["tb.model.mask_o", "tb.rtl.mask_o", "tb.in.exec_i"] {
            assert!(
                s.contains(&format!("scope_add_as_group_recursive {scope}\n")),
                "{s}"
            );
        }
    }
    // A lane the decoder says nothing of: the lane's element of the arrays
    // of lanes beside it.
    let path = dir.path().join("toy.gfx9.1.vcd");
    let paths = write_sessions(&path, &view(&l, 5)).unwrap();
    let traces = gtkw_traces(&std::fs::read_to_string(&paths[0]).unwrap());
    assert_eq!(
        traces[6..10],
        [
            "+{model mask_o lane5} tb.model.mask_o.lane5",
            "+{rtl mask_o lane5} tb.rtl.mask_o.lane5",
            "+{model a_o[5]} tb.model.a_o[5][11:0]",
            "+{rtl a_o[5]} tb.rtl.a_o[5][11:0]",
        ]
    );
}

#[test]
fn bad_signals_are_refused() {
    let l = Layout::new(&toy::TABLE);
    let mut bits = common::bits();
    bits[0].source = gpucosim_waves::Source::Bit {
        port: "mask_o",
        bit: 16,
    };
    let e = l.clone().with_signals(bits).unwrap_err();
    assert!(
        e.to_string().contains("no port mask_o with a bit 16"),
        "{e}"
    );
    let mut bits = common::bits();
    bits[1].name = "lane0".into();
    let e = l.clone().with_signals(bits).unwrap_err();
    assert!(e.to_string().contains("declared twice"), "{e}");
    let mut bits = common::bits();
    bits[0].group = gpucosim_waves::Group::In;
    assert!(l.clone().with_signals(bits).is_err());
    let e = layout()
        .with_decoder(Box::new(common::ToyDecoder))
        .unwrap_err();
    assert!(e.to_string().contains("has a decoder already"), "{e}");
}
