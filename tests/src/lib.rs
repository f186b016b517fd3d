//! Shared helpers for the end-to-end tests: a toy unit for testing the
//! engine on its own, and RTL tree manipulation for broken-RTL fixtures.

use gpucosim::testbench::{Drive, Driver, Evaluator, Knob, KnobValues, Testbench, TxnSource};
use gpucosim_model::cover::{coverage, Recorder};
use gpucosim_model::ports::PortTable;
use gpucosim_model::{Coverage, Profile, Unit};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

gpucosim_model::ports! {
    /// Ports of the toy unit.
    pub mod toy_ports("toy", "toy_top") {
        input rst_ni: 1,
        input en_i: 1,
        input d_i: 32 x 4,
        output sum_o: 40,
        output q_o: 32 x 4,
    }
}
use toy_ports as p;

/// The toy model: `sum_o` accumulates the lanes of `d_i` (plus one per
/// enabled cycle on gfx11), `q_o` registers `d_i`, both when `en_i`.
#[derive(Clone)]
pub struct ToyModel {
    profile: Profile,
    sum: u64,
    q: [u32; 4],
    cov: Coverage,
    rec: Recorder<ToyBin>,
}

impl Unit for ToyModel {
    fn table(&self) -> &'static PortTable {
        &p::TABLE
    }
    fn profile(&self) -> Profile {
        self.profile
    }
    fn step(&mut self, inp: &[u32], out: &mut [u32]) {
        if !p::rst_ni.bit(inp) {
            self.sum = 0;
            self.q = [0; 4];
        }
        p::sum_o.set(out, self.sum);
        for (i, q) in self.q.iter().enumerate() {
            p::q_o.set_elem(out, i, *q as u64);
        }
        if p::rst_ni.bit(inp) && p::en_i.bit(inp) {
            self.rec.hit(ToyBin::Enabled, &mut self.cov);
            let mut s = self.sum;
            for i in 0..4 {
                self.q[i] = p::d_i.elem(inp, i) as u32;
                s += self.q[i] as u64;
            }
            if self.profile == Profile::Gfx11 {
                s += 1;
            }
            self.sum = s & ((1 << 40) - 1);
        }
    }
    fn in_flight(&self) -> String {
        format!("sum={:#x}", self.sum)
    }
    fn coverage(&self) -> &Coverage {
        &self.cov
    }

    fn fork(&self) -> Box<dyn Unit> {
        Box::new(self.clone())
    }
}

/// One cycle of toy stimulus.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToyTxn {
    /// Enable.
    pub en: bool,
    /// Lane values.
    pub d: [u32; 4],
}

/// Toy knobs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ToyKnobs {
    /// Probability of `en`.
    pub en_prob: f64,
}

impl Default for ToyKnobs {
    fn default() -> Self {
        ToyKnobs { en_prob: 0.8 }
    }
}

/// Applies one transaction per cycle.
pub struct ToyDriver {
    n: usize,
    done: bool,
}

impl Driver<ToyTxn> for ToyDriver {
    fn drive(&mut self, _prev: &[u32], inp: &mut [u32], src: &mut dyn TxnSource<ToyTxn>) -> Drive {
        match src.next_txn() {
            Some(t) => {
                self.n += 1;
                p::en_i.set(inp, t.en as u64);
                for (i, d) in t.d.iter().enumerate() {
                    p::d_i.set_elem(inp, i, *d as u64);
                }
                Drive::Busy
            }
            None => {
                self.done = true;
                Drive::Done
            }
        }
    }
    fn in_flight(&self) -> Option<usize> {
        // Outputs show the transaction applied in the previous cycle.
        (!self.done && self.n > 1).then(|| self.n - 2)
    }
}

/// The toy testbench.
pub struct ToyTestbench;

gpucosim_model::bins! {
    /// Coverage bins of the toy unit.
    pub enum ToyBin {
        Enabled = "enabled",
    }
}

impl Testbench for ToyTestbench {
    type Txn = ToyTxn;
    type Knobs = ToyKnobs;
    type Driver = ToyDriver;
    const UNIT: &'static str = p::TABLE.unit;
    const KNOBS: &'static [Knob] = &[Knob {
        name: "en_prob",
        values: KnobValues::Real(0.0, 1.0),
        help: "probability of `en_i` in a cycle",
    }];
    // The driver is open-loop: it reads no output.
    const DRIVER_READS: &'static [&'static str] = &[];
    fn table() -> &'static PortTable {
        &p::TABLE
    }
    fn model(profile: Profile) -> Box<dyn Unit> {
        Box::new(ToyModel {
            profile,
            sum: 0,
            q: [0; 4],
            cov: coverage::<ToyBin>(profile),
            rec: Recorder::new(profile),
        })
    }
    fn generate(_: u32, _: Profile, k: &ToyKnobs, rng: &mut ChaCha8Rng) -> ToyTxn {
        ToyTxn {
            en: rng.gen_bool(k.en_prob),
            d: [rng.gen(), rng.gen(), rng.gen(), rng.gen()],
        }
    }
    fn directed(_: Profile) -> Vec<ToyTxn> {
        vec![ToyTxn {
            en: true,
            d: [u32::MAX; 4],
        }]
    }
    fn driver(_: Profile, _: &ToyKnobs) -> ToyDriver {
        ToyDriver { n: 0, done: false }
    }
    fn simplify(t: &ToyTxn) -> Vec<ToyTxn> {
        if t.d == [0; 4] {
            vec![]
        } else {
            vec![ToyTxn {
                en: t.en,
                d: [0; 4],
            }]
        }
    }
    gpucosim::produce_batch_impl!();
    /// One request `{"d": [4 numbers]}` is one enabled cycle; the result
    /// is `{"sum": sum_o}` after it. The sum carries over between requests.
    fn evaluator(profile: Profile) -> Evaluator {
        let mut m = Self::model(profile);
        let mut inp = vec![0u32; p::TABLE.in_words()];
        let mut out = vec![0u32; p::TABLE.out_words()];
        Box::new(move |req| {
            let d = req
                .get("d")
                .and_then(|d| d.as_array())
                .filter(|d| d.len() == 4)
                .ok_or("`d` must be an array of 4 numbers")?;
            inp.fill(0);
            p::rst_ni.set(&mut inp, 1);
            p::en_i.set(&mut inp, 1);
            for (i, x) in d.iter().enumerate() {
                let x = x
                    .as_u64()
                    .filter(|x| *x <= u64::from(u32::MAX))
                    .ok_or_else(|| format!("`d[{i}]` must be a 32-bit number"))?;
                p::d_i.set_elem(&mut inp, i, x);
            }
            m.step(&inp, &mut out);
            p::en_i.set(&mut inp, 0);
            m.step(&inp, &mut out);
            Ok(serde_json::json!({ "sum": p::sum_o.get(&out) }))
        })
    }
}

pub mod sv_bench;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    tree(from, to, false)
}

/// `from`'s files copied into `to`, or with `link` hard-linked where the
/// two share a file system (copied otherwise).
fn tree(from: &Path, to: &Path, link: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let dst = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            tree(&e.path(), &dst, link)?;
        } else if !(link && std::fs::hard_link(e.path(), &dst).is_ok()) {
            std::fs::copy(e.path(), dst)?;
        }
    }
    Ok(())
}

/// A new RTL cache at `at`, without builds, for a test about building
/// from nothing, given the shared cache's compiled objects that depend on
/// no RTL: Verilator's runtime objects (`runtime/`: about 6 CPU-seconds
/// a flag set) and the shims' objects (`objects/`: 1–2 CPU-seconds a unit
/// and flag set), which builds keep apart for reuse and which are
/// complete once there. Its builds then compile their RTL alone. None
/// are given when the shared cache has none yet.
///
/// Their files are hard links where the two caches share a file system
/// (builds only read them and replace them by renames; the precompiled
/// `verilated.h` in `runtime/` is 70 MB), copies otherwise.
pub fn fresh_cache(at: &Path) -> PathBuf {
    std::fs::create_dir_all(at).unwrap();
    for kept in ["runtime", gpucosim::cache::USER_OBJECTS] {
        let from = gpucosim::cache_root().join(kept);
        if from.is_dir() {
            tree(&from, &at.join(kept), true).unwrap();
        }
    }
    at.to_path_buf()
}

/// A copy of the toy RTL tree in `dir`, with its generated port list, and
/// `find` replaced by `replace` in `toy_top.sv` when given.
pub fn toy_rtl(dir: &Path, patch: Option<(&str, &str)>) -> PathBuf {
    let root = dir.join("rtl");
    copy_tree(&repo_root().join("tests/fixtures/toy_rtl"), &root).unwrap();
    std::fs::write(root.join("toy/toy_ports.svh"), p::TABLE.sv_port_list()).unwrap();
    if let Some((f, r)) = patch {
        let path = root.join("toy/toy_top.sv");
        let s = std::fs::read_to_string(&path).unwrap();
        assert_eq!(s.matches(f).count(), 1, "patch target must occur once");
        std::fs::write(&path, s.replace(f, r)).unwrap();
    }
    root
}

/// `cmd` building RTL in the quick flavor (`GPUCOSIM_BUILD=quick`: loops
/// not unrolled, builds in seconds): what the tests simulate is short, and
/// the RTL's semantics are the same.
pub fn quick(mut cmd: std::process::Command) -> std::process::Command {
    cmd.env("GPUCOSIM_BUILD", "quick");
    cmd
}

/// A broken-RTL fixture: a patch applied to a copy of `rtl/`.
#[derive(Debug, Clone, Deserialize)]
pub struct BrokenFixture {
    /// Unit.
    pub unit: String,
    /// What the bug is.
    pub description: String,
    /// File under `rtl/`.
    pub file: String,
    /// Text to replace (must occur exactly once).
    pub find: String,
    /// The buggy text.
    pub replace: String,
    /// Profile that exposes it.
    pub profile: String,
    /// Seed that exposes it.
    pub seed: u64,
    /// Cycles within which it must be caught.
    pub cycles: u64,
}

impl BrokenFixture {
    /// Every fixture in `tests/fixtures/broken/`, with its file name.
    pub fn all() -> Vec<(String, BrokenFixture)> {
        let dir = repo_root().join("tests/fixtures/broken");
        let mut v = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "json") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let f: BrokenFixture = serde_json::from_str(&text)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                    v.push((p.file_stem().unwrap().to_string_lossy().into_owned(), f));
                }
            }
        }
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// Writes the patched copy of `rtl/` into `dir` and returns its root.
    pub fn apply(&self, dir: &Path) -> PathBuf {
        let root = dir.join("rtl");
        copy_tree(&repo_root().join("rtl"), &root).unwrap();
        let path = root.join(&self.file);
        let s = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("fixture file {}: {e}", path.display()));
        assert_eq!(
            s.matches(&self.find).count(),
            1,
            "fixture text must occur exactly once in {}: {:?}",
            self.file,
            self.find
        );
        std::fs::write(&path, s.replace(&self.find, &self.replace)).unwrap();
        root
    }
}

/// A copy of `rtl/` in `dir` with `find` replaced by `replace` (which must
/// occur once) in `file` (relative to `rtl/`); returns its root.
pub fn rtl_with(dir: &Path, file: &str, find: &str, replace: &str) -> PathBuf {
    BrokenFixture {
        unit: String::new(),
        description: String::new(),
        file: file.to_string(),
        find: find.to_string(),
        replace: replace.to_string(),
        profile: String::new(),
        seed: 0,
        cycles: 0,
    }
    .apply(dir)
}

/// A waitcnt RTL that on gfx9 stops with `$fatal`, and on gfx11 never
/// returns from `eval()`, once wave 0 has 4 vector memory instructions out
/// (within 5,000 cycles of seeds 1 to 3 on both profiles).
pub fn waitcnt_fatal_or_hang(dir: &Path) -> PathBuf {
    let root = rtl_with(
        dir,
        "waitcnt/waitcnt_top.sv",
        "  always_ff @(posedge clk_i or negedge rst_ni) begin",
        "  // Fault: gfx9 stops with $fatal, gfx11 never returns.
  always_ff @(posedge clk_i) begin
    if (GFX == 9 && rst_ni && cnt_q[0][CntVm] == 6'd4) $fatal(1, \"wave 0 has 4 loads out at %0t\", $time);
  end
  logic [31:0] spin;
  always_comb begin
    spin = 0;
    while (GFX == 11 && rst_ni && cnt_q[0][CntVm] == 6'd4) spin = spin + 1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin",
    );
    let top = root.join("waitcnt/waitcnt_top.sv");
    let s = std::fs::read_to_string(&top).unwrap();
    let find = "    issue_ack_o = rst_ni && issue_ack;";
    assert_eq!(s.matches(find).count(), 1);
    std::fs::write(
        &top,
        s.replace(
            find,
            "    issue_ack_o = rst_ni && issue_ack && (spin != 32'hFFFF_FFFF);",
        ),
    )
    .unwrap();
    root
}

/// A VCD read back with `vcd::Parser`: its header, its variables by scope
/// path and its value changes per timestamp.
#[derive(Debug)]
pub struct Vcd {
    /// The header: `$date`, `$version`, `$timescale`, comments and scopes.
    pub header: vcd::Header,
    /// Every variable by its dotted scope path (`tb.mismatch.any`,
    /// `tb.rtl.q_o[3]`; a bit range is not part of the path), with its
    /// identifier code and width.
    pub vars: BTreeMap<String, (vcd::IdCode, u32)>,
    /// Changes before the first timestamp.
    pub initial: Vec<(vcd::IdCode, String)>,
    /// The timestamps in file order, each with the changes made at it.
    /// A value is its bits, most significant first (`0`, `1`, `x`, `z`),
    /// as written: leading zeros may be left out.
    pub times: Vec<(u64, Vec<(vcd::IdCode, String)>)>,
}

impl Vcd {
    /// Reads and parses the VCD at `path` (panics, naming it, if it cannot).
    pub fn read(path: &Path) -> Vcd {
        let bytes =
            std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Vcd::parse(&bytes).unwrap_or_else(|e| panic!("{} is not a valid VCD: {e}", path.display()))
    }

    /// Parses a whole VCD.
    pub fn parse(bytes: &[u8]) -> std::io::Result<Vcd> {
        let mut parser = vcd::Parser::new(bytes);
        let header = parser.parse_header()?;
        let mut vars = BTreeMap::new();
        fn walk(
            items: &[vcd::ScopeItem],
            prefix: &str,
            vars: &mut BTreeMap<String, (vcd::IdCode, u32)>,
        ) {
            for item in items {
                match item {
                    vcd::ScopeItem::Scope(s) => {
                        walk(&s.items, &format!("{prefix}{}.", s.identifier), vars)
                    }
                    vcd::ScopeItem::Var(v) => {
                        vars.insert(format!("{prefix}{}", v.reference), (v.code, v.size));
                    }
                    _ => {}
                }
            }
        }
        walk(&header.items, "", &mut vars);
        let mut initial = Vec::new();
        let mut times: Vec<(u64, Vec<(vcd::IdCode, String)>)> = Vec::new();
        for command in parser {
            let change = match command? {
                vcd::Command::Timestamp(t) => {
                    times.push((t, Vec::new()));
                    continue;
                }
                vcd::Command::ChangeScalar(id, v) => (id, v.to_string()),
                vcd::Command::ChangeVector(id, v) => {
                    (id, v.iter().map(|b| b.to_string()).collect())
                }
                vcd::Command::ChangeReal(id, v) => (id, v.to_string()),
                vcd::Command::ChangeString(id, v) => (id, v),
                _ => continue,
            };
            match times.last_mut() {
                Some((_, changes)) => changes.push(change),
                None => initial.push(change),
            }
        }
        Ok(Vcd {
            header,
            vars,
            initial,
            times,
        })
    }

    /// The identifier code of the variable at `path` (panics, listing the
    /// variables, if there is none).
    pub fn id(&self, path: &str) -> vcd::IdCode {
        match self.vars.get(path) {
            Some((id, _)) => *id,
            None => panic!(
                "no variable {path} in the VCD; it has {:?}",
                self.vars.keys().collect::<Vec<_>>()
            ),
        }
    }

    /// The timestamps, in order.
    pub fn stamps(&self) -> Vec<u64> {
        self.times.iter().map(|(t, _)| *t).collect()
    }

    /// The value the variable at `path` changes to at time `t`, if it
    /// changes then (`None` also when `t` is not a timestamp of the file).
    pub fn change_at(&self, path: &str, t: u64) -> Option<&str> {
        let id = self.id(path);
        let (_, changes) = self.times.iter().find(|(s, _)| *s == t)?;
        changes
            .iter()
            .rev()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| v.as_str())
    }

    /// The value of the variable at `path` at time `t`: its last change at
    /// or before `t`.
    pub fn value_at(&self, path: &str, t: u64) -> Option<&str> {
        let id = self.id(path);
        let in_order = self.initial.iter().chain(
            self.times
                .iter()
                .take_while(|(s, _)| *s <= t)
                .flat_map(|(_, c)| c),
        );
        in_order
            .filter(|(i, _)| *i == id)
            .last()
            .map(|(_, v)| v.as_str())
    }

    /// The header's comments (`$comment` outside the scopes), in order.
    pub fn comments(&self) -> Vec<&str> {
        self.header
            .items
            .iter()
            .filter_map(|i| match i {
                vcd::ScopeItem::Comment(c) => Some(c.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// `bits` (as in [`Vcd::times`]) as a number, if it has neither `x` nor `z`.
pub fn vcd_value(bits: &str) -> Option<u64> {
    u64::from_str_radix(bits, 2).ok()
}
