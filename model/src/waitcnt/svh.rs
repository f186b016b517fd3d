//! `rtl/waitcnt/waitcnt_enc.svh`: the sizes (waves, return channels,
//! counters and their widths), the counter indices, the error codes, the
//! package's types, the instruction class codes, each profile's counter
//! maxima, legal classes, increments and `s_waitcnt` immediate fields,
//! rendered from the [`cycle`](super::cycle) and [`isa`](super::isa)
//! sizes, [`ErrCode`], [`Class`], [`PARAMS`](super::params::PARAMS) and
//! [`Class::incr`] for the RTL package (`crate::svh`).

use super::cycle::{ErrCode, NUM_ERRORS, RET_CHANNELS, WAVES};
use super::isa::{Class, Counter, CLASS_W, CNT_W, COUNTERS, NUM_COUNTERS};
use super::params::{Field, WaitcntParams};
use super::tlm::MAX_INCR;
use crate::profile::Profile;
use crate::svh::{bit, bits, camel, lit, Svh};

/// Width of an increment (`IncrW`): up to [`MAX_INCR`].
#[doc(hidden)]
pub const INCR_W: u32 = bits(MAX_INCR as u64);
/// Width of what one cycle's returns take from one counter (`DecW`): up to
/// [`MAX_INCR`] from each of the [`RET_CHANNELS`].
#[doc(hidden)]
pub const DEC_W: u32 = bits(RET_CHANNELS as u64 * MAX_INCR as u64);
// The RTL zero-extends an increment to `DecW` and `CntW` bits, and a
// decrement to `CntW` bits.
const _: () = assert!(INCR_W < DEC_W && DEC_W < CNT_W);

/// Counter index names of the RTL package, in [`COUNTERS`] order.
fn cnt(c: Counter) -> &'static str {
    match c {
        Counter::Vm => "CntVm",
        Counter::Lgkm => "CntLgkm",
        Counter::Exp => "CntExp",
        Counter::Vs => "CntVs",
    }
}

/// `{imm[hi fields], imm[lo field]}` zero-extended to the package's
/// counter width (`CntW`, [`CNT_W`]).
#[doc(hidden)]
pub fn slice(fields: &[Field]) -> String {
    let mut parts: Vec<String> = fields
        .iter()
        .rev()
        .filter(|f| f.width > 0)
        .map(|f| format!("imm[{}:{}]", f.lo + f.width - 1, f.lo))
        .collect();
    let w: u32 = fields.iter().map(|f| f.width).sum();
    assert!(w <= CNT_W, "an immediate field is no wider than a counter");
    if w < CNT_W {
        let pad = CNT_W - w;
        parts.insert(0, format!("{pad}'b{}", "0".repeat(pad as usize)));
    }
    if parts.len() == 1 {
        parts.remove(0)
    } else {
        format!("{{{}}}", parts.join(", "))
    }
}

/// The text of `rtl/waitcnt/waitcnt_enc.svh`.
pub fn enc_svh() -> String {
    let mut s = Svh::new(
        "waitcnt",
        "model/src/waitcnt (cycle.rs sizes, ErrCode; isa.rs sizes, Class; params.rs PARAMS; \
         tlm.rs Class::incr, MAX_INCR)",
    );
    s.comment("Sizes.");
    s.sizes(&[
        ("NumWaves", WAVES as u64, "WAVES"),
        (
            "NumRet",
            RET_CHANNELS as u64,
            "RET_CHANNELS: return channels",
        ),
        (
            "NumCnt",
            NUM_COUNTERS as u64,
            "NUM_COUNTERS: VM, LGKM, EXP, VS",
        ),
        ("CntW", CNT_W.into(), "CNT_W: widest counter of any profile"),
        ("IncrW", INCR_W.into(), "bits of MAX_INCR"),
        ("DecW", DEC_W.into(), "bits of NumRet * MAX_INCR"),
    ]);
    s.line("");
    s.comment("Counter indices.");
    let names: Vec<String> = COUNTERS.iter().map(|&c| cnt(c).to_string()).collect();
    let rows: Vec<(&str, u64, &str)> = COUNTERS
        .iter()
        .zip(&names)
        .map(|(&c, n)| (n.as_str(), c as u64, ""))
        .collect();
    s.sizes(&rows);
    s.line("");
    s.comment(
        "Protocol errors (err_o): bit code-1 of a wave's element is set for every\n\
         error code raised on the wave in the cycle.",
    );
    s.sizes(&[("NumErr", NUM_ERRORS as u64, "NUM_ERRORS")]);
    s.line("typedef logic [NumErr-1:0] err_t;");
    let errs: Vec<(String, u32, String)> =
        std::iter::once(("ErrNone".to_string(), 0, String::new()))
            .chain(ErrCode::ALL.iter().map(|&e| {
                (
                    format!("Err{e:?}"),
                    e.bit(),
                    format!("  // code {}", e as u32),
                )
            }))
            .collect();
    let nw = errs.iter().map(|e| e.0.len()).max().unwrap_or(0);
    for (name, mask, comment) in &errs {
        s.line(format!(
            "localparam err_t {name:<nw$} = {NUM_ERRORS}'b{mask:0w$b};{comment}",
            w = NUM_ERRORS
        ));
    }
    s.line("");
    s.comment("Per-counter increments of one instruction (each 0..MAX_INCR).");
    s.line("typedef logic [NumCnt-1:0][IncrW-1:0] incr_t;");
    s.comment("Per-counter values or thresholds.");
    s.line("typedef logic [NumCnt-1:0][CntW-1:0] cnt_t;");
    s.line("");
    s.comment("Instruction classes (issue_class_i / ret_class_i).");
    for c in Class::ALL {
        s.line(format!(
            "localparam logic [{}:0] Cls{} = {};",
            CLASS_W - 1,
            camel(c.name()),
            lit(CLASS_W, c.code().into())
        ));
    }
    s.line("");
    s.comment("Per profile: the GFX parameter selects a row; other values take gfx9's.");
    s.per_profile("has_vs", "logic", "", "r", &[], |p| {
        vec![format!("r = {};", bit(WaitcntParams::of(p).has_vs()))]
    });
    s.comment("Maximum of every counter (0: the profile has none).");
    s.per_profile("cnt_max", "cnt_t", "", "m", &[], |p| {
        COUNTERS
            .iter()
            .map(|&c| format!("m[{}] = {};", cnt(c), lit(CNT_W, c.max(p).into())))
            .collect()
    });
    let cls_arg = format!("logic [{}:0] cls", CLASS_W - 1);
    s.comment("Whether a class code exists on the profile.");
    s.per_profile(
        "cls_legal",
        "logic",
        &cls_arg,
        "r",
        &["r = 1'b0;".into()],
        |p| {
            let legal: Vec<String> = Class::ALL
                .iter()
                .filter(|c| c.legal(p))
                .map(|c| format!("Cls{}", camel(c.name())))
                .collect();
            vec![
                "unique case (cls)".into(),
                format!("  {}: r = 1'b1;", legal.join(", ")),
                "  default: r = 1'b0;".into(),
                "endcase".into(),
            ]
        },
    );
    s.comment(
        "What an instruction of a class adds to each counter (its return takes\n\
         the same away). Zero for an illegal class.",
    );
    s.per_profile(
        "cls_incr",
        "incr_t",
        &cls_arg,
        "inc",
        &["inc = '0;".into()],
        |p| {
            let mut v = vec!["unique case (cls)".to_string()];
            for c in Class::ALL {
                let incr = c.incr(p);
                let sets: Vec<String> = COUNTERS
                    .iter()
                    .filter(|&&k| incr[k as usize] > 0)
                    .map(|&k| {
                        let v = incr[k as usize];
                        assert!(v <= MAX_INCR, "{} {} {k:?}", p.name(), c.name());
                        format!("inc[{}] = {};", cnt(k), lit(INCR_W, v.into()))
                    })
                    .collect();
                let body = if sets.is_empty() {
                    "inc = '0;".to_string()
                } else if sets.len() == 1 {
                    sets[0].clone()
                } else {
                    format!("begin {} end", sets.join(" "))
                };
                v.push(format!(
                    "  Cls{}: {body}  // {} {}",
                    camel(c.name()),
                    p.name(),
                    c.name()
                ));
            }
            v.push("  default: inc = '0;".into());
            v.push("endcase".into());
            v
        },
    );
    s.comment(
        "Thresholds of an s_waitcnt (vscnt = 0) or s_waitcnt_vscnt (vscnt = 1)\n\
         immediate (SPEC 3.2). Unused bits are ignored.",
    );
    let prelude = ["t = cnt_max(gfx);".to_string()];
    s.per_profile(
        "decode_imm",
        "cnt_t",
        "logic [15:0] imm, logic vscnt",
        "t",
        &prelude,
        |p: Profile| {
            let w = WaitcntParams::of(p);
            let n = p.name();
            let mut v = Vec::new();
            if w.has_vs() {
                v.push(format!(
                    "if (vscnt) t[CntVs] = {};  // {n} vscnt",
                    slice(&[w.wait_vscnt])
                ));
                v.push("else begin".into());
            } else {
                v.push("if (!vscnt) begin".into());
            }
            v.push(format!(
                "  t[CntVm] = {};  // {n} vmcnt",
                slice(&[w.wait_vm_lo, w.wait_vm_hi])
            ));
            v.push(format!(
                "  t[CntLgkm] = {};  // {n} lgkmcnt",
                slice(&[w.wait_lgkm])
            ));
            v.push(format!(
                "  t[CntExp] = {};  // {n} expcnt",
                slice(&[w.wait_exp])
            ));
            v.push("end".into());
            v
        },
    );
    s.finish()
}
