//! SystemVerilog for the C ABI, generated from the port tables:
//!
//! - `dpi/sv/gpucosim_dpi.sv`: package `gpucosim_dpi`, the `import "DPI-C"`
//!   declarations of `libgpucosim_dpi` and each unit's packed widths;
//! - `dpi/sv/<unit>_ref.sv`: module `<unit>_ref`, exactly the ports of
//!   `<unit>_top` (and its `GFX` parameter), whose outputs are what the
//!   model predicts: the outputs of the cycle are evaluated whenever an
//!   input changes and after every rising edge, and the edge advances the
//!   model with the inputs it saw;
//! - `dpi/examples/<unit>_tb.sv`: an example testbench, DUT and reference
//!   side by side on gpucosim's stimulus, every output compared every
//!   cycle before the rising edge, `$error` on a mismatch.
//!
//! `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated` rewrites
//! the files; that test fails while they are stale.

use crate::capi::per_unit_name;
use gpucosim_model::ports::{Dir, PortDef, PortTable};
use std::fmt::Write as _;

const HEADER: &str = "// Generated from the port tables by\n\
// `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. Do not edit.\n";

/// `ta` → `Ta` (the prefix of a unit's parameters in the package).
fn camel(unit: &str) -> String {
    unit.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The packed type of a port, as in `<unit>_ports.svh`.
fn ty(p: &PortDef) -> String {
    p.sv_type()
}

/// The slice of a packed word vector holding a port.
fn slice(vec: &str, offset: usize, width: u32) -> String {
    format!("{vec}[{} +: {width}]", 32 * offset)
}

/// The package of DPI imports (`dpi/sv/gpucosim_dpi.sv`).
pub fn package<'a>(tables: impl IntoIterator<Item = &'a PortTable>) -> String {
    let mut s = String::from(HEADER);
    s.push_str(
        "//\n\
         // The DPI-C imports of libgpucosim_dpi (dpi/include/gpucosim.h): gpucosim's\n\
         // reference models and stimulus. Each unit's packed ports are one bit\n\
         // vector of 32-bit words, every port at its word offset (the port table in\n\
         // model/src/<unit>/ports.rs), passed as svBitVecVal*.\n\
         package gpucosim_dpi;\n\n",
    );
    for l in [
        "import \"DPI-C\" function int unsigned gpucosim_abi_version();",
        "import \"DPI-C\" function string gpucosim_last_error();",
        "import \"DPI-C\" function chandle gpucosim_model_new(input string unit, input string profile);",
        "import \"DPI-C\" function void gpucosim_model_free(input chandle model);",
        "import \"DPI-C\" function int gpucosim_model_reset(input chandle model);",
        "import \"DPI-C\" function string gpucosim_model_in_flight(input chandle model);",
        "import \"DPI-C\" function int gpucosim_model_cov_bins(input chandle model);",
        "import \"DPI-C\" function string gpucosim_model_cov_name(input chandle model, input int i);",
        "import \"DPI-C\" function longint gpucosim_model_cov_hits(input chandle model, input int i);",
        "import \"DPI-C\" function string gpucosim_model_cov_summary(input chandle model);",
        "import \"DPI-C\" function chandle gpucosim_stim_new(input string unit, input string profile,",
        "                                                    input longint unsigned seed, input string knobs);",
        "import \"DPI-C\" function longint gpucosim_stim_txns(input chandle stim);",
        "import \"DPI-C\" function void gpucosim_stim_free(input chandle stim);",
    ] {
        let _ = writeln!(s, "  {l}");
    }
    for t in tables {
        let c = camel(t.unit);
        let _ = write!(
            s,
            "\n  // {unit}: the packed ports of {top}.\n\
             \x20 localparam int unsigned {c}InBits = {ib};\n\
             \x20 localparam int unsigned {c}OutBits = {ob};\n\
             \x20 import \"DPI-C\" function int {eval}(input chandle model, input bit [{c}InBits-1:0] inputs,\n\
             \x20                                    output bit [{c}OutBits-1:0] outputs);\n\
             \x20 import \"DPI-C\" function int {tick}(input chandle model, input bit [{c}InBits-1:0] inputs);\n\
             \x20 import \"DPI-C\" function int {step}(input chandle model, input bit [{c}InBits-1:0] inputs,\n\
             \x20                                    output bit [{c}OutBits-1:0] outputs);\n\
             \x20 import \"DPI-C\" function int {next}(input chandle stim, output bit [{c}InBits-1:0] inputs);\n",
            unit = t.unit,
            top = t.top,
            ib = 32 * t.in_words(),
            ob = 32 * t.out_words(),
            eval = per_unit_name(t.unit, "eval"),
            tick = per_unit_name(t.unit, "tick"),
            step = per_unit_name(t.unit, "step"),
            next = per_unit_name(t.unit, "stim_next"),
        );
    }
    s.push_str("\nendpackage\n");
    s
}

/// The reference module `<unit>_ref` (`dpi/sv/<unit>_ref.sv`).
pub fn ref_module(t: &PortTable) -> String {
    let unit = t.unit;
    let c = camel(unit);
    let m = format!("{unit}_ref");
    let mut s = String::from(HEADER);
    let _ = write!(
        s,
        "//\n\
         // gpucosim's reference model of {top} as a module with exactly its ports:\n\
         // its outputs are what the model predicts. The outputs of the cycle are\n\
         // evaluated whenever an input changes and after each rising edge of clk_i;\n\
         // the edge advances the model with the inputs it saw. rst_ni is\n\
         // asynchronous, as in {top}. Needs package gpucosim_dpi and\n\
         // libgpucosim_dpi (docs/dpi.md).\n\
         module {m} #(\n\
         \x20 parameter int unsigned GFX = 9\n\
         ) (\n\
         \x20 input  logic clk_i,\n",
        top = t.top
    );
    let n = t.ports.len();
    for (i, p) in t.ports.iter().enumerate() {
        let dir = if p.dir == Dir::In { "input " } else { "output" };
        let sep = if i + 1 == n { "" } else { "," };
        let _ = writeln!(s, "  {dir} {} {}{sep}", ty(p), p.name);
    }
    let _ = write!(
        s,
        ");\n\n\
         \x20 import gpucosim_dpi::*;\n\n\
         \x20 chandle model;\n\
         \x20 // Read at the edge and by the evaluation at any change.\n\
         \x20 /* verilator lint_off SYNCASYNCNET */\n\
         \x20 bit     live;   // the model exists\n\
         \x20 bit     edges;  // toggles after every rising edge\n\
         \x20 bit [{c}InBits-1:0]  in_w;\n\
         \x20 /* verilator lint_on SYNCASYNCNET */\n\
         \x20 /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits\n\
         \x20 bit [{c}OutBits-1:0] out_w;\n\
         \x20 /* verilator lint_on UNUSEDSIGNAL */\n\n\
         \x20 initial begin\n\
         \x20   model = gpucosim_model_new(\"{unit}\", $sformatf(\"gfx%0d\", GFX));\n\
         \x20   if (model == null) $fatal(1, \"{m}: %s\", gpucosim_last_error());\n\
         \x20   // Once every process has started: the first evaluation.\n\
         \x20   /* verilator lint_off INITIALDLY */\n\
         \x20   live <= 1'b1;\n\
         \x20   /* verilator lint_on INITIALDLY */\n\
         \x20 end\n\n\
         \x20 final gpucosim_model_free(model);\n\n\
         \x20 always_comb begin\n"
    );
    for (p, port) in t.of(Dir::In) {
        let _ = writeln!(
            s,
            "    {} = {};",
            slice("in_w", port.offset, port.width),
            p.name
        );
        let pad = 32 * port.words() as u32 - port.width;
        if pad > 0 {
            let _ = writeln!(
                s,
                "    in_w[{} +: {pad}] = '0;",
                32 * port.offset as u32 + port.width
            );
        }
    }
    let _ = write!(
        s,
        "  end\n\n\
         \x20 // The outputs of the cycle for the current inputs and state.\n\
         \x20 always @(in_w, edges, live) begin\n\
         \x20   if (live && {eval}(model, in_w, out_w) != 0)\n\
         \x20     $fatal(1, \"{m}: %s\", gpucosim_last_error());\n\
         \x20 end\n\n\
         \x20 // The rising edge, with the inputs just before it.\n\
         \x20 always @(posedge clk_i) begin\n\
         \x20   if (live && {tick}(model, in_w) != 0)\n\
         \x20     $fatal(1, \"{m}: %s\", gpucosim_last_error());\n\
         \x20   edges <= ~edges;\n\
         \x20 end\n\n",
        eval = per_unit_name(unit, "eval"),
        tick = per_unit_name(unit, "tick"),
    );
    for (p, port) in t.of(Dir::Out) {
        let _ = writeln!(
            s,
            "  assign {} = {};",
            p.name,
            slice("out_w", port.offset, port.width)
        );
    }
    s.push_str("\nendmodule\n");
    s
}

/// The example testbench `<unit>_tb` (`dpi/examples/<unit>_tb.sv`).
pub fn testbench(t: &PortTable) -> String {
    let unit = t.unit;
    let c = camel(unit);
    let tb = format!("{unit}_tb");
    let mut s = String::from(HEADER);
    let _ = write!(
        s,
        "//\n\
         // Example testbench: {top} (the DUT) and {unit}_ref (gpucosim's model) side\n\
         // by side, driven by gpucosim's stimulus for the seed (the inputs\n\
         // `gpucosim run --unit {unit} --seed N` gives the RTL), every output\n\
         // compared every cycle before the rising edge; a mismatch is an $error\n\
         // naming the cycle, the port (the first differing element of an array),\n\
         // both values and what is in flight.\n\
         //\n\
         // Plusargs: +seed=N (1), +cycles=N (10000), +knobs=name=value,... (none),\n\
         // +max_mismatches=N (1: stop at the first).\n\
         module {tb} #(\n\
         \x20 parameter int unsigned GFX = 9\n\
         );\n\n\
         \x20 import gpucosim_dpi::*;\n\n\
         \x20 // High from time 0 without an edge: the first cycle is compared at\n\
         \x20 // the first falling edge, before the first rising one.\n\
         \x20 /* verilator lint_off PROCASSINIT */\n\
         \x20 bit clk_i = 1'b1;\n\
         \x20 /* verilator lint_on PROCASSINIT */\n\
         \x20 always #5 clk_i = ~clk_i;\n\n\
         \x20 // Inputs, from the stimulus.\n",
        top = t.top
    );
    for (p, _) in t.of(Dir::In) {
        let _ = writeln!(s, "  {} {};", ty(p), p.name);
    }
    s.push_str("\n  // Outputs of each side.\n");
    for (p, _) in t.of(Dir::Out) {
        let _ = writeln!(s, "  {} dut_{n}, ref_{n};", ty(p), n = p.name);
    }
    let conns = |side: &str| {
        let mut v = vec![".clk_i".to_string()];
        for p in t.ports {
            v.push(match p.dir {
                Dir::In => format!(".{}", p.name),
                Dir::Out => format!(".{n}({side}_{n})", n = p.name),
            });
        }
        v.join(",\n    ")
    };
    let _ = write!(
        s,
        "\n  {top} #(.GFX(GFX)) dut (\n    {}\n  );\n\n\
         \x20 {unit}_ref #(.GFX(GFX)) golden (\n    {}\n  );\n\n",
        conns("dut"),
        conns("ref"),
        top = t.top
    );
    let next = per_unit_name(unit, "stim_next");
    s.push_str(
        &r#"  longint unsigned seed = 1, cycles = 10000, cycle;
  int unsigned     max_mismatches = 1, mismatches;
  string           knobs = "";
  chandle          stim;
  /* verilator lint_off UNUSEDSIGNAL */ // the words' padding bits
  bit [@CInBits-1:0] stim_w;
  /* verilator lint_on UNUSEDSIGNAL */

  // The inputs of the next cycle (non-blocking: after the rising edge).
  task automatic drive();
    if (@NEXT(stim, stim_w) < 0) $fatal(1, "@TB: %s", gpucosim_last_error());
    /* verilator lint_off INITIALDLY */ // the first call, at time 0
"#
        .replace("@C", &c)
        .replace("@NEXT", &next)
        .replace("@TB", &tb),
    );
    for (p, port) in t.of(Dir::In) {
        let _ = writeln!(
            s,
            "    {} <= {};",
            p.name,
            slice("stim_w", port.offset, port.width)
        );
    }
    s.push_str(
        &r#"    /* verilator lint_on INITIALDLY */
  endtask

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("cycles=%d", cycles));
    void'($value$plusargs("knobs=%s", knobs));
    void'($value$plusargs("max_mismatches=%d", max_mismatches));
    stim = gpucosim_stim_new("@UNIT", $sformatf("gfx%0d", GFX), seed, knobs);
    if (stim == null) $fatal(1, "@TB: %s", gpucosim_last_error());
    drive();
  end

  final gpucosim_stim_free(stim);

  function automatic void mismatch(string what);
    mismatches++;
    $error("@UNIT gfx%0d seed %0d cycle %0d: %s (in flight: %s); reproduce: +seed=%0d +cycles=%0d%s",
           GFX, seed, cycle, what, gpucosim_model_in_flight(golden.model), seed, cycle + 1,
           knobs == "" ? "" : {" +knobs=", knobs});
  endfunction

  // The next cycle's inputs after every rising edge.
  always @(posedge clk_i) begin
    cycle <= cycle + 1;
    drive();
  end

  // Every output of the cycle compared at the falling edge: the inputs
  // have changed after the rising one and the outputs have settled.
  always @(negedge clk_i) begin
"#
        .replace("@UNIT", unit)
        .replace("@TB", &tb),
    );
    for (p, _) in t.of(Dir::Out) {
        let n = p.name;
        if p.elems > 1 {
            let _ = write!(
                s,
                "    if (dut_{n} !== ref_{n})\n\
                 \x20     for (int i = 0; i < {e}; i++)\n\
                 \x20       if (dut_{n}[i] !== ref_{n}[i]) begin\n\
                 \x20         mismatch($sformatf(\"{n}[%0d]: DUT %h, model %h\", i, dut_{n}[i], ref_{n}[i]));\n\
                 \x20         break;\n\
                 \x20       end\n",
                e = p.elems
            );
        } else {
            let _ = writeln!(
                s,
                "    if (dut_{n} !== ref_{n}) mismatch($sformatf(\"{n}: DUT %h, model %h\", dut_{n}, ref_{n}));"
            );
        }
    }
    s.push_str(
        &r#"    if (max_mismatches != 0 && mismatches >= max_mismatches)
      $fatal(1, "@TB: %0d mismatch(es) by cycle %0d", mismatches, cycle);
    if (cycle + 1 >= cycles) begin
      $display("@TB: gfx%0d seed %0d: %0d cycles, %0d transactions, %0d mismatches; %s",
               GFX, seed, cycle + 1, gpucosim_stim_txns(stim), mismatches,
               gpucosim_model_cov_summary(golden.model));
      if (mismatches != 0) $fatal(1, "@TB: %0d mismatch(es)", mismatches);
      $finish;
    end
  end

endmodule
"#
        .replace("@TB", &tb),
    );
    s
}

/// Every generated file: (path relative to `dpi/`, text).
pub fn files(tables: &[&PortTable]) -> Vec<(String, String)> {
    let mut v = vec![(
        "sv/gpucosim_dpi.sv".to_string(),
        package(tables.iter().copied()),
    )];
    for t in tables {
        v.push((format!("sv/{}_ref.sv", t.unit), ref_module(t)));
        v.push((format!("examples/{}_tb.sv", t.unit), testbench(t)));
    }
    v
}

/// The line before the per-unit block of the C header
/// (`dpi/include/gpucosim.h`).
pub const C_UNITS_BEGIN: &str =
    "/* Generated from the unit registry by `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`. */";
/// The line after it.
pub const C_UNITS_END: &str = "/* End of the generated per-unit declarations. */";

/// The C header's per-unit declarations: one `GPUCOSIM_PER_UNIT(unit)` line
/// per registered unit.
pub fn c_header_units(units: &[&str]) -> String {
    units
        .iter()
        .map(|u| format!("GPUCOSIM_PER_UNIT({u})\n"))
        .collect()
}
