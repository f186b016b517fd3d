//! The FST writer read back: by `fst-reader` (names, widths and every value
//! against the frames written), and by GTKWave's own `fst2vcd` (the
//! reference reader) against the VCD of the same frames, when it is
//! installed.

use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue};
use gpucosim_waves::{write_capture, Capture, Dump, Frame, Layout, Meta, WaveFormat};
use std::collections::BTreeMap;
use std::path::Path;

gpucosim_model::ports! {
    mod toy("toy", "toy_top") {
        input rst_ni: 1,
        input v_i: 128,
        input d_i: 8 x 3,
        input e_i: 48 x 2,
        output q_o: 48 x 4,
        output w_o: 128,
        output s_o: 1,
    }
}

/// A deterministic stream of words.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A frame's cycle and its input, model and RTL words.
type Owned = (u64, Vec<u32>, Vec<u32>, Vec<u32>);

/// Frames of cycles `0..n`: values that change some cycles and not others,
/// the RTL differing from the model now and then.
fn frames(n: u64) -> Vec<Owned> {
    let t = &toy::TABLE;
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inp = vec![0u32; t.in_words()];
    let mut model = vec![0u32; t.out_words()];
    let mut out = Vec::new();
    for c in 0..n {
        toy::rst_ni.set(&mut inp, u64::from(c >= 2));
        if c % 3 == 0 {
            for w in 0..4 {
                toy::v_i.slice_mut(&mut inp)[w] = r.next() as u32;
            }
        }
        for e in 0..3 {
            if r.next().is_multiple_of(4) {
                toy::d_i.set_elem(&mut inp, e, r.next() & 0xff);
            }
        }
        for e in 0..2 {
            toy::e_i.set_elem(&mut inp, e, r.next() & ((1 << 48) - 1));
        }
        for e in 0..4 {
            if r.next().is_multiple_of(2) {
                toy::q_o.set_elem(&mut model, e, r.next() & ((1 << 48) - 1));
            }
        }
        if c % 5 == 0 {
            for w in 0..4 {
                toy::w_o.slice_mut(&mut model)[w] = r.next() as u32;
            }
        }
        toy::s_o.set(&mut model, c & 1);
        let mut rtl = model.clone();
        if c % 17 == 5 {
            toy::q_o.set_elem(&mut rtl, 2, 7);
        }
        if c % 23 == 0 {
            toy::w_o.slice_mut(&mut rtl)[3] = 1;
        }
        out.push((c, inp.clone(), model.clone(), rtl));
    }
    out
}

/// The value of every variable, by full path, at the frame of a cycle, as
/// characters: what the file must say at `10 * cycle`.
fn expected(layout: &Layout, f: &Frame<'_>) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    m.insert("tb.clk".into(), "0".into());
    m.insert("tb.cycle".into(), format!("{:064b}", f.cycle));
    for v in &layout.vars {
        let buf = match v.group {
            gpucosim_waves::Group::In => f.inputs,
            gpucosim_waves::Group::Model => f.model,
            gpucosim_waves::Group::Rtl => f.rtl,
        };
        let bits: String = v
            .words(buf)
            .iter()
            .rev()
            .map(|w| format!("{w:032b}"))
            .collect::<String>();
        let width = v.width as usize;
        let bits = if v.lsb % 32 == 0 {
            bits[bits.len() - width..].to_string()
        } else {
            format!("{:0width$b}", v.value(buf))
        };
        m.insert(fst_path(&v.path(), v.width), bits);
    }
    let mut any = false;
    for (name, off, n) in &layout.outputs {
        let d = f.model[*off..*off + *n] != f.rtl[*off..*off + *n];
        any |= d;
        m.insert(
            format!("tb.mismatch.{name}"),
            if d { "1" } else { "0" }.into(),
        );
    }
    m.insert("tb.mismatch.any".into(), if any { "1" } else { "0" }.into());
    m
}

/// A path as the FST names its variable: `tb.rtl.q_o[1] [47:0]`.
fn fst_path(path: &str, width: u32) -> String {
    if width > 1 {
        format!("{path} [{}:0]", width - 1)
    } else {
        path.to_string()
    }
}

/// Reads an FST: header, variables (path → width) and, per time, the
/// values set then (path → characters).
struct Read {
    start: u64,
    end: u64,
    version: String,
    widths: BTreeMap<String, u32>,
    changes: BTreeMap<u64, BTreeMap<String, String>>,
}

fn read_fst(path: &Path) -> Read {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut r = FstReader::open_and_read_time_table(f).unwrap();
    let h = r.get_header();
    let mut scope = Vec::new();
    let mut names = BTreeMap::new();
    let mut widths = BTreeMap::new();
    r.read_hierarchy(|e| match e {
        FstHierarchyEntry::Scope { name, .. } => scope.push(name),
        FstHierarchyEntry::UpScope => {
            scope.pop();
        }
        FstHierarchyEntry::Var {
            name,
            length,
            handle,
            is_alias,
            ..
        } => {
            assert!(!is_alias, "{name} is declared as an alias");
            let p = format!("{}.{name}", scope.join("."));
            widths.insert(p.clone(), length);
            names.insert(handle.get_index(), p);
        }
        _ => {}
    })
    .unwrap();
    let mut changes: BTreeMap<u64, BTreeMap<String, String>> = BTreeMap::new();
    r.read_signals(&FstFilter::all(), |t, handle, v| {
        let FstSignalValue::String(s) = v else {
            panic!("a real value")
        };
        changes.entry(t).or_default().insert(
            names[&handle.get_index()].clone(),
            String::from_utf8_lossy(s).into(),
        );
    })
    .unwrap();
    Read {
        start: h.start_time,
        end: h.end_time,
        version: h.version,
        widths,
        changes,
    }
}

/// Checks `r` holds exactly `frames` from its start: every variable at each
/// cycle's time, and the clock high at its edge.
fn check_values(r: &Read, frames: &[Owned]) {
    let first = frames[0].0;
    assert_eq!(r.start, 10 * first);
    assert_eq!(r.end, 10 * frames.last().unwrap().0 + 5);
    let times: Vec<u64> = r.changes.keys().copied().collect();
    let want: Vec<u64> = frames
        .iter()
        .flat_map(|(c, ..)| [10 * c, 10 * c + 5])
        .collect();
    assert_eq!(times, want);
    let layout = Layout::new(&toy::TABLE);
    let mut now = BTreeMap::new();
    for (c, i, m, o) in frames {
        now.extend(r.changes[&(10 * c)].clone());
        let f = Frame {
            cycle: *c,
            inputs: i,
            model: m,
            rtl: o,
        };
        assert_eq!(now, expected(&layout, &f), "cycle {c}");
        let edge = &r.changes[&(10 * c + 5)];
        assert_eq!(edge.len(), 1, "cycle {c}: {edge:?}");
        assert_eq!(edge["tb.clk"], "1", "cycle {c}");
        now.insert("tb.clk".into(), "1".into());
    }
}

#[test]
fn a_window_reads_back_with_every_name_width_and_value() {
    let all = frames(400);
    let mut cap = Capture::new(&toy::TABLE, 150);
    for (c, i, m, o) in &all {
        cap.record(*c, i, m, o);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.fst");
    let meta = Meta {
        comments: vec!["gpucosim toy.gfx9.1".into(), "reproduce: x".into()],
    };
    write_capture(&path, &toy::TABLE, &cap, &meta, WaveFormat::Fst).unwrap();
    let r = read_fst(&path);
    assert_eq!(r.version, "gpucosim toy.gfx9.1");
    // The hierarchy: the VCD's paths and widths, vectors named as vcd2fst
    // names them.
    let layout = Layout::new(&toy::TABLE);
    let mut want: BTreeMap<String, u32> = layout
        .vars
        .iter()
        .map(|v| (fst_path(&v.path(), v.width), v.width))
        .collect();
    want.insert("tb.clk".into(), 1);
    want.insert("tb.cycle".into(), 64);
    want.insert("tb.mismatch.any".into(), 1);
    for o in ["q_o", "w_o", "s_o"] {
        want.insert(format!("tb.mismatch.{o}"), 1);
    }
    assert_eq!(r.widths, want);
    assert!(r.widths.contains_key("tb.rtl.q_o[3] [47:0]"));
    assert!(r.widths.contains_key("tb.in.v_i [127:0]"));
    check_values(&r, &all[250..]);
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["w.fst"]);
}

#[test]
fn a_long_stream_spans_blocks_and_reads_back() {
    // Enough changes for several blocks.
    let n = 3 * gpucosim_waves::BLOCK_BYTES as u64 / 2 / 60;
    let all = frames(n);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.fst");
    let mut d = Dump::create(&path, &toy::TABLE, &Meta::default(), WaveFormat::Fst).unwrap();
    assert_eq!(d.path(), path);
    for (c, i, m, o) in &all {
        d.frame(&Frame {
            cycle: *c,
            inputs: i,
            model: m,
            rtl: o,
        })
        .unwrap();
    }
    // Nothing at the path until it is finished.
    assert!(!path.exists());
    d.finish().unwrap();
    let r = read_fst(&path);
    check_values(&r, &all);
    let blocks = count_blocks(&std::fs::read(&path).unwrap());
    assert!(blocks >= 2, "{blocks} value change blocks");
}

/// The value change blocks of an FST, counted from its header.
fn count_blocks(bytes: &[u8]) -> u64 {
    let at = 1 + 8 * 8;
    u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[test]
fn an_unfinished_dump_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gone.fst");
    let all = frames(600);
    let mut d = Dump::create(&path, &toy::TABLE, &Meta::default(), WaveFormat::Fst).unwrap();
    for (c, i, m, o) in &all {
        d.frame(&Frame {
            cycle: *c,
            inputs: i,
            model: m,
            rtl: o,
        })
        .unwrap();
    }
    drop(d);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn frames_out_of_order_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let all = frames(3);
    let mut d = Dump::create(
        &dir.path().join("x.fst"),
        &toy::TABLE,
        &Meta::default(),
        WaveFormat::Fst,
    )
    .unwrap();
    let f = |k: usize| Frame {
        cycle: all[k].0,
        inputs: &all[k].1,
        model: &all[k].2,
        rtl: &all[k].3,
    };
    d.frame(&f(1)).unwrap();
    let e = d.frame(&f(0)).unwrap_err();
    assert!(e.to_string().contains("out of order"), "{e}");
}

/// The VCD at `path` as values per time (path → bits without leading
/// zeros), each variable carried forward.
fn vcd_states(path: &Path) -> BTreeMap<u64, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ids: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut scope: Vec<String> = Vec::new();
    let mut lines = text.lines();
    for l in lines.by_ref() {
        let p: Vec<&str> = l.split_whitespace().collect();
        match p.first() {
            Some(&"$scope") => scope.push(p[2].to_string()),
            Some(&"$upscope") => {
                scope.pop();
            }
            Some(&"$var") => {
                // `$var wire 48 ! q_o[1] [47:0] $end`: the name is all up to
                // `$end`.
                let name = p[4..p.len() - 1].join(" ");
                let full = format!("{}.{name}", scope.join("."));
                ids.entry(p[3].to_string()).or_default().push(full);
            }
            Some(&"$enddefinitions") => break,
            _ => {}
        }
    }
    let norm = |bits: &str| {
        let t = bits.trim_start_matches('0');
        if t.is_empty() {
            "0".to_string()
        } else {
            t.to_string()
        }
    };
    let mut now: BTreeMap<String, String> = BTreeMap::new();
    let mut out = BTreeMap::new();
    let mut t = None;
    for l in lines {
        let l = l.trim();
        if l.is_empty() || l.starts_with('$') {
            continue;
        }
        if let Some(n) = l.strip_prefix('#') {
            if let Some(t) = t {
                out.insert(t, now.clone());
            }
            t = Some(n.parse::<u64>().unwrap());
            continue;
        }
        let (v, id) = match l.strip_prefix('b') {
            Some(rest) => rest.split_once(' ').unwrap(),
            None => l.split_at(1),
        };
        for name in &ids[id] {
            now.insert(name.clone(), norm(v));
        }
        // Values before the first time stamp are at time zero (fst2vcd
        // writes no `#0`).
        t.get_or_insert(0);
    }
    if let Some(t) = t {
        out.insert(t, now);
    }
    out
}

#[test]
fn gtkwave_reads_the_fst_as_the_vcd_of_the_same_frames() {
    let Some(fst2vcd) = ["/usr/bin/fst2vcd", "/usr/local/bin/fst2vcd"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.is_file())
    else {
        println!(
            "SKIPPED: GTKWave's fst2vcd is not installed; the FST is checked with fst-reader only"
        );
        return;
    };
    let all = frames(700);
    for window in [1000, 300] {
        let mut cap = Capture::new(&toy::TABLE, window);
        for (c, i, m, o) in &all {
            cap.record(*c, i, m, o);
        }
        let dir = tempfile::tempdir().unwrap();
        let (vcd, fst) = (dir.path().join("w.vcd"), dir.path().join("w.fst"));
        let meta = Meta::default();
        write_capture(&vcd, &toy::TABLE, &cap, &meta, WaveFormat::Vcd).unwrap();
        write_capture(&fst, &toy::TABLE, &cap, &meta, WaveFormat::Fst).unwrap();
        let out = std::process::Command::new(fst2vcd)
            .arg(&fst)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fst2vcd: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let back = dir.path().join("back.vcd");
        std::fs::write(&back, &out.stdout).unwrap();
        let (a, b) = (vcd_states(&vcd), vcd_states(&back));
        assert_eq!(a.len(), 2 * window.min(700), "window {window}");
        assert_eq!(a, b, "window {window}");
    }
}
