//! Viewer sessions written next to a VCD, so that opening one shows the
//! divergence at once: the marker on the focus cycle, the view zoomed to
//! about [`SPAN_CYCLES`] cycles around it (starting [`LEAD_CYCLES`] before
//! it, later at the start of the file and earlier near its end), and the
//! signals in the order an engineer reads them.
//!
//! For `X.vcd`, [`write_sessions`] writes two files beside it:
//!
//! * `X.gtkw`, a GTKWave save file. Open it with `gtkwave X.gtkw` from any
//!   working directory. It names the VCD by its file name only, together
//!   with its own file name (`[dumpfile] "X.vcd"`, `[savefile] "X.gtkw"`);
//!   GTKWave resolves the dump file relative to the directory the save file
//!   is loaded from (`find_dumpfile` in its `savefile.c`), so the pair keeps
//!   working when the directory holding both is moved or copied. Without the
//!   `[savefile]` line GTKWave would look for `X.vcd` in the working
//!   directory only.
//! * `X.sucl`, a Surfer command file. Surfer runs a command file after the
//!   waveform given on its command line is loaded:
//!   `surfer X.vcd -c X.sucl` (or `--command-file`). The file does not load
//!   the VCD itself: Surfer's `load_file` resolves a relative path against
//!   the working directory, not against the command file, so it would break
//!   as soon as Surfer is started anywhere else.
//!
//! What the sessions show, top to bottom:
//!
//! 1. `tb.clk`, `tb.cycle` (decimal) and `tb.mismatch.any`, then the
//!    decoded texts of no scope (the instruction in flight, `tb.in.instr`);
//! 2. each diverging output port, in report order, as an open group named
//!    after the port: its mismatch bit, then the model's and the RTL's value
//!    next to each other (for an array port the diverging elements, as
//!    `model port[e]` / `rtl port[e]` pairs, then the decoded signals of the
//!    first one's item, then the other elements in a closed sub-group; for
//!    a mask with decoded lanes, each diverging bit's own signal as a
//!    model/RTL pair, the first one followed by the decoded signals of its
//!    lane or wave (its LDS bank and dword, a wave's counters) or else by
//!    that item's elements of the other output arrays of the same noun (a
//!    lane-dword's address), then the packed port, then the other lanes in
//!    a closed sub-group);
//! 3. the decoded signals not shown yet, in a group `decoded`, one
//!    sub-group per first scope (`vsharp`, open; per-lane or per-wave ones
//!    closed);
//! 4. the other outputs, each as a closed group of the same shape;
//! 5. the inputs, in an open group (an array input as a closed sub-group of
//!    its elements, a mask's lanes in a closed sub-group after it).
//!
//! Values are in hex, masks (the ports listed in [`View::binary`]) and one-bit
//! signals in binary, decoded integers in decimal. Decoded signals carry
//! labels of their path below the group, after the side for an output
//! (`model lane_inrange_o lane32 dword0`; GTKWave would show only the last
//! dot-separated level). Model and RTL traces carry a label naming their side
//! (`model lane_addr_o[17]`, `rtl lane_addr_o[17]`): GTKWave shows only the
//! last level of a name by default, which would make the two alike.
//!
//! In Surfer, whose command files can neither build a group from chosen
//! items nor scroll to a given time, the groups are dividers named after the
//! port, array ports are added whole, per scope, as folded groups at the end
//! of the list (the scopes of decoded lanes and waves recursively), names
//! are made unique (`model.lane_addr_o.[17]`), and the
//! view is fitted, zoomed in by halves to between about 25 and 50 cycles and
//! centred on the cursor, which is set on the focus.
//!
//! [`write_trace_sessions`] does the same for the RTL's internal-signal VCD
//! (`--trace-rtl`): the unit's top-level instance is expanded and its
//! signals are shown, with the same marker and window.
//!
//! GTKWave's save-file syntax is taken from its `savefile.c` (writer and
//! parser) and the trace flag bits from `analyzer.h`; Surfer's command names
//! from `libsurfer/src/command_parser.rs` ([`SURFER_COMMANDS`]).

use crate::{Group, Kind, Layout, Signal, Source, Var};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// What the session shows.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The variables of the VCD.
    pub layout: &'a Layout,
    /// The cycle to put the marker on (the divergence, or the cycle where
    /// the run ended). Clamped to [`View::window`].
    pub focus: u64,
    /// First and last cycle in the file.
    pub window: (u64, u64),
    /// The diverging output ports, in report order, each with its diverging
    /// elements (empty for a non-array port; empty for an array port shows
    /// all its elements in the closed sub-group).
    pub diverging: Vec<(String, Vec<u32>)>,
    /// Ports shown in binary (masks); all others with width > 1 in hex.
    pub binary: Vec<String>,
    /// What the elements (or, for a mask, the bits) of ports stand for:
    /// `(port, noun, per)`, element or bit `e` being item `e / per` of that
    /// noun (`("lane_inrange_o", "lane", 4)`: bit 129 is lane 32). A
    /// diverging bit or element is shown with the decoded signals of its
    /// item, or else with the elements of the same item of the output
    /// arrays of that noun (a lane's address).
    pub items: Vec<(String, &'static str, u32)>,
    /// A title/comment line (e.g. "lds.gfx9.1: divergence at cycle 9").
    pub title: String,
}

/// Cycles the view spans.
pub const SPAN_CYCLES: u64 = 36;

/// Cycles shown before the focus (fewer when the file starts later).
pub const LEAD_CYCLES: u64 = 16;

/// Nanoseconds per cycle in the VCDs (cycle `n` at `10n`).
const NS_PER_CYCLE: u64 = 10;

/// How far before the end of the file a view that would reach past it
/// stops, in nanoseconds: GTKWave keeps the session's start time only when
/// `start + span <= end` (`wavearea_configure_event`), and the span it
/// shows varies with the width its theme leaves the wave pane. 20 ns keeps
/// the start for a pane up to 5% wider than [`GTKWAVE_WAVE_PX`]; the cost is
/// that a focus on the file's last cycle lies just right of the view.
const END_MARGIN_NS: u64 = 20;

/// The GTKWave window the session asks for, in pixels.
pub const GTKWAVE_SIZE: (u32, u32) = (1600, 900);

/// Width of GTKWave's tree pane and of its signal-name pane, in pixels.
const GTKWAVE_PANES: (u32, u32) = (200, 380);

/// Width of GTKWave's wave pane at [`GTKWAVE_SIZE`] with [`GTKWAVE_PANES`]
/// (as GTKWave 3.3 reports it, `gtkwave::getWaveWidth`).
#[doc(hidden)]
pub const GTKWAVE_WAVE_PX: f64 = 920.0;

/// The commands a Surfer command file may use: the list `get_parser` builds
/// in Surfer's `libsurfer/src/command_parser.rs` when a waveform is loaded,
/// plus the alias it also matches (`module_add`), as of its sources of
/// early 2026 (project `surfer-project/surfer`).
pub const SURFER_COMMANDS: &[&str] = &[
    "load_file",
    "load_url",
    "load_state",
    "run_command_file",
    "run_command_file_from_url",
    "switch_file",
    "variable_add",
    "generator_add",
    "item_focus",
    "item_set_color",
    "item_set_background_color",
    "item_set_format",
    "item_unset_color",
    "item_unset_background_color",
    "item_unfocus",
    "item_rename",
    "zoom_fit",
    "scope_add",
    "module_add",
    "scope_add_recursive",
    "scope_add_as_group",
    "scope_add_as_group_recursive",
    "scope_select",
    "scope_select_root",
    "stream_add",
    "stream_select",
    "stream_select_root",
    "divider_add",
    "config_reload",
    "theme_select",
    "reload",
    "remove_unavailable",
    "show_controls",
    "show_mouse_gestures",
    "show_quick_start",
    "show_logs",
    "show_performance",
    "scroll_to_start",
    "scroll_to_end",
    "goto_start",
    "goto_end",
    "zoom_in",
    "zoom_out",
    "toggle_menu",
    "toggle_side_panel",
    "toggle_fullscreen",
    "toggle_tick_lines",
    "variable_add_from_scope",
    "generator_add_from_stream",
    "variable_set_name_type",
    "variable_force_name_type",
    "preference_set_clock_highlight",
    "preference_set_hierarchy_style",
    "preference_set_arrow_key_bindings",
    "goto_cursor",
    "goto_marker",
    "dump_tree",
    "group_marked",
    "group_dissolve",
    "group_fold_recursive",
    "group_unfold_recursive",
    "group_fold_all",
    "group_unfold_all",
    "save_state",
    "save_state_as",
    "timeline_add",
    "cursor_set",
    "marker_set",
    "marker_remove",
    "show_marker_window",
    "viewport_add",
    "viewport_remove",
    "transition_next",
    "transition_previous",
    "transaction_next",
    "transaction_prev",
    "copy_value",
    "pause_simulation",
    "unpause_simulation",
    "undo",
    "redo",
    "wcp_server_start",
    "wcp_server_stop",
    "exit",
];

/// GTKWave trace flags (`TR_*` in its `analyzer.h`), as the save file
/// writes them after `@` (hex).
#[doc(hidden)]
pub mod flag {
    pub const HEX: u64 = 1 << 1;
    pub const DEC: u64 = 1 << 2;
    pub const BIN: u64 = 1 << 3;
    pub const RJUSTIFY: u64 = 1 << 5;
    pub const BLANK: u64 = 1 << 9;
    pub const COLLAPSED: u64 = 1 << 12;
    pub const CLOSED: u64 = 1 << 22;
    pub const GRP_BEGIN: u64 = 1 << 23;
    pub const GRP_END: u64 = 1 << 24;
}

/// GTKWave's trace colour for mismatch bits (`[color] 1`, red).
const GTKWAVE_RED: u8 = 1;

/// How a value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Radix {
    Hex,
    Bin,
    Dec,
    /// A text (a string variable: viewers show it as it is).
    Text,
}

impl Radix {
    fn gtkwave(self) -> u64 {
        flag::RJUSTIFY
            | match self {
                Radix::Hex | Radix::Text => flag::HEX,
                Radix::Bin => flag::BIN,
                Radix::Dec => flag::DEC,
            }
    }

    /// Surfer's name of the translator (set even where it is Surfer's
    /// default, which a user's configuration may change).
    fn surfer(self) -> &'static str {
        match self {
            Radix::Hex => "Hexadecimal",
            Radix::Bin => "Binary",
            Radix::Dec => "Unsigned",
            Radix::Text => "String",
        }
    }
}

/// A VCD variable as the viewers name it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Sig {
    /// The scope path, dot-separated (`tb.model`).
    scope: String,
    /// The reference as declared (`lane_addr_o[17]`).
    reference: String,
    /// The declared index (`[47:0]`), if any.
    index: Option<String>,
    width: u32,
}

impl Sig {
    fn new(scope: &str, reference: &str, width: u32, ranged: bool) -> Sig {
        Sig {
            scope: scope.to_string(),
            reference: reference.to_string(),
            index: (ranged && width > 1).then(|| format!("[{}:0]", width - 1)),
            width,
        }
    }

    #[doc(hidden)]
    pub fn of_var(v: &Var) -> Sig {
        Sig::new(&format!("tb.{}", v.group.scope()), &v.name(), v.width, true)
    }

    /// A decoded signal: a vector with its range, an integer or a text
    /// without (a text as width 0).
    fn of_signal(s: &Signal) -> Sig {
        let mut scope = format!("tb.{}", s.group.scope());
        for p in &s.scope {
            scope.push('.');
            scope.push_str(p);
        }
        Sig::new(
            &scope,
            &s.name,
            s.kind.width(),
            matches!(s.kind, Kind::Bits(_)),
        )
    }

    /// GTKWave's name: the path with the reference and its index appended
    /// (`tb.model.lane_addr_o[17][47:0]`).
    #[doc(hidden)]
    pub fn gtkwave(&self) -> String {
        format!(
            "{}.{}{}",
            self.scope,
            self.reference,
            self.index.as_deref().unwrap_or("")
        )
    }

    /// Surfer's name. Surfer reads VCDs with `wellen`, which takes a
    /// trailing `[n]` of a reference wider than one bit as an array index:
    /// `lane_addr_o[17] [47:0]` becomes variable `[17]` in scope
    /// `lane_addr_o`. A one-bit `w_i[3]` stays variable `w_i` with bit index
    /// 3, which Surfer's `variable_add` spells `w_i[3]`.
    fn surfer(&self) -> String {
        match split_element(&self.reference) {
            Some((base, elem)) if self.width > 1 => {
                format!("{}.{base}.{elem}", self.scope)
            }
            _ => format!("{}.{}", self.scope, self.reference),
        }
    }
}

/// `("lane_addr_o", "[17]")` for `lane_addr_o[17]`.
fn split_element(reference: &str) -> Option<(&str, &str)> {
    let open = reference.rfind('[')?;
    let (base, elem) = reference.split_at(open);
    let digits = elem.strip_prefix('[')?.strip_suffix(']')?;
    (open > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then_some((base, elem))
}

/// Where the view sits, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Frame {
    /// The marker (the focus cycle).
    #[doc(hidden)]
    pub marker: u64,
    /// The left edge of the view.
    #[doc(hidden)]
    pub start: u64,
    /// The last time in the file.
    #[doc(hidden)]
    pub end: u64,
}

impl Frame {
    #[doc(hidden)]
    pub fn new(focus: u64, window: (u64, u64)) -> Frame {
        let (first, last) = (window.0.min(window.1), window.0.max(window.1));
        let focus = focus.clamp(first, last);
        let end = last * NS_PER_CYCLE + NS_PER_CYCLE / 2;
        // GTKWave ignores a start time whose view would run past the end
        // of the file (and shows the file from its beginning instead), so
        // near the end the view ends [`END_MARGIN_NS`] before it.
        let latest = end.saturating_sub(SPAN_CYCLES * NS_PER_CYCLE + END_MARGIN_NS);
        let start = (focus.saturating_sub(LEAD_CYCLES) * NS_PER_CYCLE).min(latest);
        Frame {
            marker: focus * NS_PER_CYCLE,
            start: start.max(first * NS_PER_CYCLE),
            end,
        }
    }

    /// GTKWave's zoom for [`SPAN_CYCLES`] across the wave pane: GTKWave
    /// shows `2^-zoom` time units per 200 pixels (`calczoom`).
    #[doc(hidden)]
    pub fn gtkwave_zoom(&self) -> f64 {
        let span = (SPAN_CYCLES * NS_PER_CYCLE) as f64;
        -(span * 200.0 / GTKWAVE_WAVE_PX).log2()
    }

    /// How many times Surfer halves the fitted view (0 to the end of the
    /// file) to come nearest to [`SPAN_CYCLES`].
    #[doc(hidden)]
    pub fn surfer_zoom_ins(&self) -> u32 {
        let span = (SPAN_CYCLES * NS_PER_CYCLE) as f64;
        let ratio = self.end as f64 / span;
        if ratio <= 1.0 {
            0
        } else {
            ratio.log2().round() as u32
        }
    }
}

/// One line of text, safe inside a comment of either file.
fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// A GTKWave save file being written.
struct Gtkw {
    out: String,
    flags: Option<u64>,
}

impl Gtkw {
    fn new(vcd: &str, gtkw: &str, title: &str, frame: Frame, open: &[&str]) -> Gtkw {
        let mut out = String::new();
        let (w, h) = GTKWAVE_SIZE;
        let (sst, signals) = GTKWAVE_PANES;
        let _ = write!(
            out,
            "[*] {}\n\
             [*] GTKWave session for {vcd}: gtkwave {gtkw} (from any directory;\n\
             [*] keep {vcd} next to it)\n\
             [dumpfile] \"{vcd}\"\n\
             [savefile] \"{gtkw}\"\n\
             [timestart] {}\n\
             [size] {w} {h}\n\
             *{:.6} {}\n\
             [sst_width] {sst}\n\
             [signals_width] {signals}\n\
             [sst_expanded] 1\n",
            one_line(title),
            frame.start,
            frame.gtkwave_zoom(),
            frame.marker,
        );
        // Scopes open in the tree pane.
        for scope in open {
            let _ = writeln!(out, "[treeopen] {scope}.");
        }
        Gtkw { out, flags: None }
    }

    fn flags(&mut self, f: u64) {
        if self.flags != Some(f) {
            let _ = writeln!(self.out, "@{f:x}");
            self.flags = Some(f);
        }
    }

    fn trace(&mut self, sig: &Sig, radix: Radix, label: Option<&str>, red: bool) {
        self.flags(radix.gtkwave());
        if red {
            let _ = writeln!(self.out, "[color] {GTKWAVE_RED}");
        }
        match label {
            Some(l) => {
                let _ = writeln!(self.out, "+{{{l}}} {}", sig.gtkwave());
            }
            None => {
                let _ = writeln!(self.out, "{}", sig.gtkwave());
            }
        }
    }

    fn begin(&mut self, name: &str, closed: bool) {
        let closed = if closed { flag::CLOSED } else { 0 };
        self.flags(flag::GRP_BEGIN | flag::BLANK | closed);
        let _ = writeln!(self.out, "-{name}");
    }

    fn end(&mut self, name: &str, closed: bool) {
        let closed = if closed {
            flag::CLOSED | flag::COLLAPSED
        } else {
            0
        };
        self.flags(flag::GRP_END | flag::BLANK | closed);
        let _ = writeln!(self.out, "-{name}");
    }
}

/// A Surfer command file being written.
struct Sucl {
    out: String,
}

impl Sucl {
    fn new(vcd: &str, sucl: &str, title: &str) -> Sucl {
        let mut out = String::new();
        let _ = write!(
            out,
            "# {}\n\
             # Surfer commands for {vcd}: surfer {vcd} -c {sucl}\n",
            one_line(title)
        );
        Sucl { out }
    }

    fn cmd(&mut self, command: &str, arg: &str) {
        debug_assert!(SURFER_COMMANDS.contains(&command), "{command}");
        if arg.is_empty() {
            let _ = writeln!(self.out, "{command}");
        } else {
            let _ = writeln!(self.out, "{command} {arg}");
        }
    }

    /// Adds a variable and formats it. Surfer inserts a new item after the
    /// focused one and moves the focus to it, so once an item is focused
    /// the format and colour commands act on the variable just added.
    fn var(&mut self, sig: &Sig, radix: Radix, red: bool) {
        self.cmd("variable_add", &sig.surfer());
        // A single bit is drawn as a level whatever the format; a text as
        // it is.
        if sig.width > 1 && radix != Radix::Text {
            self.cmd("item_set_format", radix.surfer());
        }
        if red {
            self.cmd("item_set_color", "Red");
        }
    }

    /// Fits, zooms and puts the cursor on the marker.
    fn view(&mut self, frame: Frame) {
        self.cmd("zoom_fit", "");
        for _ in 0..frame.surfer_zoom_ins() {
            self.cmd("zoom_in", "");
        }
        // From the start, so that setting the cursor outside the view
        // centres the view on it.
        self.cmd("goto_start", "");
        self.cmd("cursor_set", &frame.marker.to_string());
    }
}

/// The ports of one group of a layout, in order, each with its variables.
fn ports(layout: &Layout, group: Group) -> Vec<(&'static str, Vec<&Var>)> {
    let mut out: Vec<(&'static str, Vec<&Var>)> = Vec::new();
    for v in layout.vars.iter().filter(|v| v.group == group) {
        match out.last_mut() {
            Some((p, vars)) if *p == v.port => vars.push(v),
            _ => out.push((v.port, vec![v])),
        }
    }
    out
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// The file name of `path` as UTF-8.
fn file_name(path: &Path) -> io::Result<&str> {
    path.file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| invalid(format!("{}: no UTF-8 file name", path.display())))
}

/// Writes `text` to `path` atomically (a temporary file in the same
/// directory, renamed into place).
fn write_atomic(path: &Path, text: &str) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpucosim-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)?;
    io::Write::write_all(&mut tmp, text.as_bytes())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The paths of the GTKWave and Surfer files for `vcd`.
fn session_paths(vcd: &Path) -> (PathBuf, PathBuf) {
    (vcd.with_extension("gtkw"), vcd.with_extension("sucl"))
}

/// Diverging bits of a mask shown one by one (the others are in the
/// port's closed group of lanes).
const MAX_BITS: usize = 8;

/// The decoded signals of a layout as the sessions show them.
struct Decoded<'a> {
    signals: &'a [Signal],
    /// Per model-side signal, its RTL twin (same local path).
    twin: HashMap<usize, usize>,
    /// RTL signals with a model twin.
    has_model: HashMap<usize, usize>,
}

impl<'a> Decoded<'a> {
    fn new(layout: &'a Layout) -> Decoded<'a> {
        let signals = &layout.derived[..];
        let rtl: HashMap<String, usize> = signals
            .iter()
            .enumerate()
            .filter(|(_, s)| s.group == Group::Rtl)
            .map(|(k, s)| (s.local_path(), k))
            .collect();
        let mut twin = HashMap::new();
        let mut has_model = HashMap::new();
        for (k, s) in signals.iter().enumerate() {
            if s.group == Group::Model {
                if let Some(&r) = rtl.get(&s.local_path()) {
                    twin.insert(k, r);
                    has_model.insert(r, k);
                }
            }
        }
        Decoded {
            signals,
            twin,
            has_model,
        }
    }

    fn sig(&self, k: usize) -> Sig {
        Sig::of_signal(&self.signals[k])
    }

    fn radix(&self, k: usize) -> Radix {
        match self.signals[k].kind {
            Kind::Bits(1) => Radix::Bin,
            Kind::Bits(_) => Radix::Hex,
            Kind::Int(_) => Radix::Dec,
            Kind::Text => Radix::Text,
        }
    }

    /// Its label: the path below the group, after the side for an output,
    /// spaced (`model lane_inrange_o lane32 dword0`): GTKWave shows only
    /// the last dot-separated level of a label, as of a name.
    fn label(&self, k: usize) -> String {
        let s = &self.signals[k];
        let path = s.local_path().replace('.', " ");
        match s.group {
            Group::In => path,
            g => format!("{} {path}", g.scope()),
        }
    }

    /// `k` with its twin, model first: the signals shown together.
    fn pair(&self, k: usize) -> Vec<usize> {
        if let Some(&r) = self.twin.get(&k) {
            vec![k, r]
        } else if let Some(&m) = self.has_model.get(&k) {
            vec![m, k]
        } else {
            vec![k]
        }
    }

    /// The signal showing bit `bit` of `port` in `group`.
    fn bit(&self, group: Group, port: &str, bit: u32) -> Option<usize> {
        self.signals.iter().position(|s| {
            s.group == group
                && matches!(s.source, Source::Bit { port: p, bit: b } if p == port && b == bit)
        })
    }

    /// The signals showing bits of `port` in `group`.
    fn bits_of(&self, group: Group, port: &str) -> Vec<usize> {
        (0..self.signals.len())
            .filter(|&k| {
                let s = &self.signals[k];
                s.group == group && matches!(s.source, Source::Bit { port: p, .. } if p == port)
            })
            .collect()
    }

    /// The computed signals of `item`.
    fn of_item(&self, item: (&str, u32)) -> Vec<usize> {
        (0..self.signals.len())
            .filter(|&k| {
                let s = &self.signals[k];
                matches!(s.source, Source::Computed(_))
                    && s.item.is_some_and(|(n, i)| n == item.0 && i == item.1)
            })
            .collect()
    }
}

/// The two files' contents for `vcd` (named by file name only).
fn render(
    vcd_name: &str,
    gtkw_name: &str,
    sucl_name: &str,
    view: &View,
) -> io::Result<(String, String)> {
    let layout = view.layout;
    let frame = Frame::new(view.focus, view.window);
    let outputs = ports(layout, Group::Model);
    let rtl = ports(layout, Group::Rtl);
    let inputs = ports(layout, Group::In);
    let dec = Decoded::new(layout);
    let radix = |port: &str, v: &Var| {
        if v.width == 1 || view.binary.iter().any(|b| b == port) {
            Radix::Bin
        } else {
            Radix::Hex
        }
    };
    let items = |port: &str| {
        view.items
            .iter()
            .find(|(p, _, _)| p == port)
            .map(|(_, noun, per)| (*noun, (*per).max(1)))
    };

    // The diverging ports, checked against the layout.
    let mut diverging: Vec<(usize, Vec<u32>)> = Vec::new();
    for (name, elems) in &view.diverging {
        let Some(i) = outputs.iter().position(|(p, _)| p == name) else {
            return Err(invalid(format!("{name} is not an output port")));
        };
        if diverging.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let vars = &outputs[i].1;
        let mut elems: Vec<u32> = elems.clone();
        if vars[0].elem.is_none() {
            // A mask's bits: those shown as signals of their own.
            elems.retain(|b| *b < vars[0].width && dec.bit(Group::Model, name, *b).is_some());
        } else if let Some(e) = elems.iter().find(|&&e| e as usize >= vars.len()) {
            return Err(invalid(format!("{name} has no element {e}")));
        }
        let mut seen = Vec::new();
        elems.retain(|e| {
            let new = !seen.contains(e);
            seen.push(*e);
            new
        });
        diverging.push((i, elems));
    }
    // What to show beside diverging element or bit `b` of output port `i`:
    // the decoded signals of its item, or else the same item's elements of
    // the output arrays of its noun (port index, element).
    let beside = |i: usize, b: u32| -> (Vec<usize>, Vec<(usize, usize)>) {
        let port = outputs[i].0;
        let Some((noun, per)) = items(port) else {
            return (Vec::new(), Vec::new());
        };
        let item = b / per;
        let comps = dec.of_item((noun, item));
        if !comps.is_empty() {
            return (comps, Vec::new());
        }
        let mut elems = Vec::new();
        for (j, (q, vars)) in outputs.iter().enumerate() {
            if j == i || vars[0].elem.is_none() {
                continue;
            }
            let Some((n, qper)) = items(q) else { continue };
            if n != noun {
                continue;
            }
            if qper == per {
                if (b as usize) < vars.len() {
                    elems.push((j, b as usize));
                }
            } else {
                elems.extend(
                    (0..vars.len())
                        .filter(|e| *e as u32 / qper == item)
                        .map(|e| (j, e)),
                );
            }
        }
        (Vec::new(), elems)
    };
    let plural = |port: &str| match items(port) {
        Some((noun, _)) => format!("{port} {noun}s"),
        None => format!("{port} bits"),
    };

    let mut shown = vec![false; layout.derived.len()];
    let mut g = Gtkw::new(vcd_name, gtkw_name, &view.title, frame, &["tb"]);
    let mut s = Sucl::new(vcd_name, sucl_name, &view.title);
    let clk = Sig::new("tb", "clk", 1, false);
    let cycle = Sig::new("tb", "cycle", 64, false);
    let any = Sig::new("tb.mismatch", "any", 1, false);
    let mismatch = |port: &str| Sig::new("tb.mismatch", port, 1, false);
    g.trace(&clk, Radix::Bin, None, false);
    g.trace(&cycle, Radix::Dec, None, false);
    g.trace(&any, Radix::Bin, Some("mismatch any"), true);
    s.var(&clk, Radix::Bin, false);
    s.cmd("item_focus", "a");
    s.var(&cycle, Radix::Dec, false);
    s.var(&any, Radix::Bin, true);

    // Decoded signals `ks`, each with its twin, once.
    let decoded = |g: &mut Gtkw, s: &mut Sucl, shown: &mut Vec<bool>, ks: &[usize]| {
        for &k in ks {
            for k in dec.pair(k) {
                if shown[k] {
                    continue;
                }
                shown[k] = true;
                let sig = dec.sig(k);
                g.trace(&sig, dec.radix(k), Some(&dec.label(k)), false);
                s.var(&sig, dec.radix(k), false);
            }
        }
    };
    // Texts of no item and no scope at the top: the instruction in flight.
    let top: Vec<usize> = (0..layout.derived.len())
        .filter(|&k| {
            let d = &layout.derived[k];
            d.kind == Kind::Text && d.item.is_none() && d.scope.is_empty()
        })
        .collect();
    decoded(&mut g, &mut s, &mut shown, &top);

    // Model/RTL pairs of output port `i`'s variables `vars`.
    let pairs = |g: &mut Gtkw, s: &mut Sucl, i: usize, vars: &[usize]| {
        let (port, model) = &outputs[i];
        for &k in vars {
            let (m, r) = (model[k], rtl[i].1[k]);
            let name = m.name();
            let radix = radix(port, m);
            g.trace(
                &Sig::of_var(m),
                radix,
                Some(&format!("model {name}")),
                false,
            );
            g.trace(&Sig::of_var(r), radix, Some(&format!("rtl {name}")), false);
            s.var(&Sig::of_var(m), radix, false);
            s.var(&Sig::of_var(r), radix, false);
        }
    };
    // What is shown beside a diverging element or bit.
    let with_beside = |g: &mut Gtkw, s: &mut Sucl, shown: &mut Vec<bool>, i: usize, b: u32| {
        let (comps, elems) = beside(i, b);
        decoded(g, s, shown, &comps);
        for (j, e) in elems {
            pairs(g, s, j, &[e]);
        }
    };
    // The tail of Surfer's list: scopes added whole, folded.
    let mut tail: Vec<(String, bool)> = Vec::new();
    // The decoded bits of output port `port` not shown yet, in a closed
    // sub-group (Surfer: the port's scopes at the end).
    let other_bits =
        |g: &mut Gtkw, tail: &mut Vec<(String, bool)>, shown: &mut Vec<bool>, port: &str| {
            let rest: Vec<usize> = dec
                .bits_of(Group::Model, port)
                .into_iter()
                .chain(dec.bits_of(Group::Rtl, port))
                .filter(|k| !shown[*k])
                .collect();
            if rest.is_empty() {
                return;
            }
            let name = plural(port);
            g.begin(&name, true);
            for k in dec.bits_of(Group::Model, port) {
                for k in dec.pair(k) {
                    if !shown[k] {
                        shown[k] = true;
                        g.trace(&dec.sig(k), dec.radix(k), Some(&dec.label(k)), false);
                    }
                }
            }
            g.end(&name, true);
            for group in [Group::Model, Group::Rtl] {
                if !dec.bits_of(group, port).is_empty() {
                    tail.push((format!("tb.{}.{port}", group.scope()), true));
                }
            }
        };

    // Output port `i` as a group: its mismatch bit, then the pairs of the
    // elements (or decoded bits) `shown_elems` with what goes beside them,
    // then the port itself for a mask, then the other elements (or bits)
    // in a closed sub-group.
    let output_group = |g: &mut Gtkw,
                        s: &mut Sucl,
                        tail: &mut Vec<(String, bool)>,
                        shown: &mut Vec<bool>,
                        i: usize,
                        elems: &[u32],
                        closed: bool| {
        let (port, model) = &outputs[i];
        g.begin(port, closed);
        s.cmd("divider_add", port);
        g.trace(
            &mismatch(port),
            Radix::Bin,
            Some(&format!("mismatch {port}")),
            true,
        );
        s.var(&mismatch(port), Radix::Bin, true);
        let is_array = model[0].elem.is_some();
        if is_array {
            let first: Vec<usize> = elems.iter().map(|&e| e as usize).collect();
            let comps = match first.first() {
                Some(&e) => beside(i, e as u32).0,
                None => Vec::new(),
            };
            // GTKWave: the diverging elements, then their item's signals.
            for (n, &e) in first.iter().enumerate() {
                for (gi, side) in [(0, "model"), (1, "rtl")] {
                    let v = if gi == 0 { model[e] } else { rtl[i].1[e] };
                    g.trace(
                        &Sig::of_var(v),
                        radix(port, v),
                        Some(&format!("{side} {}", v.name())),
                        false,
                    );
                }
                if n == 0 {
                    for &k in &comps {
                        for k in dec.pair(k) {
                            if !shown[k] {
                                g.trace(&dec.sig(k), dec.radix(k), Some(&dec.label(k)), false);
                            }
                        }
                    }
                }
            }
            // Surfer: one-bit elements are added one by one, wider ones
            // whole (their scope) at the end unless they diverge.
            let flat: Vec<usize> = if model[0].width > 1 {
                first.clone()
            } else {
                (0..model.len()).collect()
            };
            for k in &flat {
                let (m, r) = (model[*k], rtl[i].1[*k]);
                s.var(&Sig::of_var(m), radix(port, m), false);
                s.var(&Sig::of_var(r), radix(port, r), false);
                if first.first() == Some(k) {
                    for &k in &comps {
                        for k in dec.pair(k) {
                            if !shown[k] {
                                shown[k] = true;
                                s.var(&dec.sig(k), dec.radix(k), false);
                            }
                        }
                    }
                }
            }
            if flat.len() < model.len() {
                tail.push((format!("tb.model.{port}"), false));
                tail.push((format!("tb.rtl.{port}"), false));
            }
            let rest: Vec<usize> = (0..model.len()).filter(|k| !first.contains(k)).collect();
            if !rest.is_empty() {
                let sub = if first.is_empty() {
                    format!("{port} elements")
                } else {
                    format!("{port} other elements")
                };
                g.begin(&sub, true);
                for &k in &rest {
                    let (m, r) = (model[k], rtl[i].1[k]);
                    let name = m.name();
                    g.trace(
                        &Sig::of_var(m),
                        radix(port, m),
                        Some(&format!("model {name}")),
                        false,
                    );
                    g.trace(
                        &Sig::of_var(r),
                        radix(port, r),
                        Some(&format!("rtl {name}")),
                        false,
                    );
                }
                g.end(&sub, true);
            }
        } else {
            // A mask's diverging bits, each with what goes beside it, then
            // the whole port.
            for (n, &b) in elems.iter().take(MAX_BITS).enumerate() {
                if let Some(k) = dec.bit(Group::Model, port, b) {
                    decoded(g, s, shown, &[k]);
                }
                if n == 0 {
                    with_beside(g, s, shown, i, b);
                }
            }
            pairs(g, s, i, &[0]);
            other_bits(g, tail, shown, port);
        }
        g.end(port, closed);
    };

    for (i, elems) in &diverging {
        output_group(&mut g, &mut s, &mut tail, &mut shown, *i, elems, false);
    }

    // The computed signals not shown yet, by their first scope: a group
    // of its own each, open unless its signals are per item (lanes, waves).
    let mut subs: Vec<(String, Vec<usize>)> = Vec::new();
    for (k, sg) in layout.derived.iter().enumerate() {
        if shown[k] || !matches!(sg.source, Source::Computed(_)) {
            continue;
        }
        let key = sg.scope.first().cloned().unwrap_or_default();
        match subs.iter_mut().find(|(n, _)| *n == key) {
            Some((_, v)) => v.push(k),
            None => subs.push((key, vec![k])),
        }
    }
    if !subs.is_empty() {
        g.begin("decoded", false);
        s.cmd("divider_add", "decoded");
        for (name, ks) in &subs {
            let per_item = ks.iter().any(|k| layout.derived[*k].item.is_some());
            if name.is_empty() {
                decoded(&mut g, &mut s, &mut shown, ks);
                continue;
            }
            g.begin(name, per_item);
            if per_item {
                for &k in ks {
                    for k in dec.pair(k) {
                        if !shown[k] {
                            shown[k] = true;
                            g.trace(&dec.sig(k), dec.radix(k), Some(&dec.label(k)), false);
                        }
                    }
                }
                for group in [Group::In, Group::Model, Group::Rtl] {
                    if ks.iter().any(|k| layout.derived[*k].group == group) {
                        tail.push((format!("tb.{}.{name}", group.scope()), true));
                    }
                }
            } else {
                decoded(&mut g, &mut s, &mut shown, ks);
            }
            g.end(name, per_item);
        }
        g.end("decoded", false);
    }

    for i in (0..outputs.len()).filter(|i| !diverging.iter().any(|(j, _)| j == i)) {
        output_group(&mut g, &mut s, &mut tail, &mut shown, i, &[], true);
    }
    g.begin("inputs", false);
    s.cmd("divider_add", "inputs");
    for (port, vars) in &inputs {
        let array = vars[0].elem.is_some();
        if array {
            g.begin(port, true);
        }
        for v in vars {
            g.trace(&Sig::of_var(v), radix(port, v), None, false);
        }
        if array {
            g.end(port, true);
        }
        if array && vars[0].width > 1 {
            tail.push((format!("tb.in.{port}"), false));
        } else {
            for v in vars {
                s.var(&Sig::of_var(v), radix(port, v), false);
            }
        }
        let bits = dec.bits_of(Group::In, port);
        if !bits.is_empty() {
            let name = plural(port);
            g.begin(&name, true);
            for &k in &bits {
                shown[k] = true;
                g.trace(&dec.sig(k), dec.radix(k), Some(&dec.label(k)), false);
            }
            g.end(&name, true);
            tail.push((format!("tb.in.{port}"), true));
        }
    }
    g.end("inputs", false);

    // Surfer: whole scopes as folded groups at the end, once nothing is
    // focused (so that they are added at the top level, after everything
    // else).
    s.cmd("item_unfocus", "");
    for (scope, recursive) in &tail {
        let cmd = if *recursive {
            "scope_add_as_group_recursive"
        } else {
            "scope_add_as_group"
        };
        s.cmd(cmd, scope);
    }
    if !tail.is_empty() {
        s.cmd("group_fold_all", "");
    }
    s.cmd("variable_force_name_type", "Unique");
    s.view(frame);
    Ok((g.out, s.out))
}

/// Writes `<stem>.gtkw` (GTKWave) and `<stem>.sucl` (Surfer) next to `vcd`,
/// atomically (a temporary file in the same directory, renamed into place).
/// Returns their paths.
///
/// Fails with [`io::ErrorKind::InvalidInput`] when a diverging port is not
/// an output of the layout or names an element it does not have.
pub fn write_sessions(vcd: &Path, view: &View) -> io::Result<Vec<PathBuf>> {
    let (gtkw, sucl) = session_paths(vcd);
    let (g, s) = render(file_name(vcd)?, file_name(&gtkw)?, file_name(&sucl)?, view)?;
    write_atomic(&gtkw, &g)?;
    write_atomic(&sucl, &s)?;
    Ok(vec![gtkw, sucl])
}

/// The variables declared directly in scope `path` of a VCD header.
fn scope_vars<'h>(items: &'h [vcd::ScopeItem], path: &[&str]) -> Option<Vec<&'h vcd::Var>> {
    let (first, rest) = path.split_first()?;
    let scope = items.iter().find_map(|i| match i {
        vcd::ScopeItem::Scope(s) if s.identifier == *first => Some(s),
        _ => None,
    })?;
    if rest.is_empty() {
        Some(
            scope
                .items
                .iter()
                .filter_map(|i| match i {
                    vcd::ScopeItem::Var(v) => Some(v),
                    _ => None,
                })
                .collect(),
        )
    } else {
        scope_vars(&scope.items, rest)
    }
}

/// A variable of a VCD header as the viewers name it.
fn header_sig(scope: &str, v: &vcd::Var) -> Sig {
    Sig {
        scope: scope.to_string(),
        reference: v.reference.clone(),
        index: v.index.map(|i| i.to_string()),
        width: v.size,
    }
}

/// The two files' contents for an RTL trace VCD whose header is `header`.
fn render_trace(
    vcd_name: &str,
    gtkw_name: &str,
    sucl_name: &str,
    header: &vcd::Header,
    top: &str,
    frame: Frame,
    title: &str,
) -> io::Result<(String, String)> {
    // Verilator wraps the design in a root scope (`TOP`, or the name the
    // model was given); the unit's instance is the child named `top`.
    let (root, vars) = header
        .items
        .iter()
        .find_map(|i| match i {
            vcd::ScopeItem::Scope(r) => {
                scope_vars(&r.items, &[top]).map(|v| (r.identifier.as_str(), v))
            }
            _ => None,
        })
        .ok_or_else(|| invalid(format!("{vcd_name}: no scope <root>.{top}")))?;
    let scope = format!("{root}.{top}");
    let mut g = Gtkw::new(vcd_name, gtkw_name, title, frame, &[root, &scope]);
    for v in &vars {
        let radix = if v.size == 1 { Radix::Bin } else { Radix::Hex };
        g.trace(&header_sig(&scope, v), radix, None, false);
    }
    let mut s = Sucl::new(vcd_name, sucl_name, title);
    s.cmd("scope_add", &scope);
    s.cmd("scope_select", &scope);
    s.view(frame);
    Ok((g.out, s.out))
}

/// For the RTL's internal-signal VCD written by Verilator's tracing
/// (`--trace-rtl`; its scopes are a root (`TOP`, or the model's name) then
/// the unit's top module, e.g. `TOP.lds_top` or `lds_top.lds_top`, and its
/// time is the same 10 ns per cycle): writes
/// `<stem>.gtkw` and `<stem>.sucl` next to `vcd` with the unit's top-level
/// instance expanded and its top-level signals shown, the marker on `focus`
/// and the same window as [`write_sessions`]. Reads the VCD's header.
pub fn write_trace_sessions(
    vcd: &Path,
    top: &str,
    focus: u64,
    window: (u64, u64),
    title: &str,
) -> io::Result<Vec<PathBuf>> {
    let file = std::fs::File::open(vcd)?;
    let header = vcd::Parser::new(io::BufReader::new(file)).parse_header()?;
    let (gtkw, sucl) = session_paths(vcd);
    let (g, s) = render_trace(
        file_name(vcd)?,
        file_name(&gtkw)?,
        file_name(&sucl)?,
        &header,
        top,
        Frame::new(focus, window),
        title,
    )?;
    write_atomic(&gtkw, &g)?;
    write_atomic(&sucl, &s)?;
    Ok(vec![gtkw, sucl])
}
