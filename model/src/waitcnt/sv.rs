//! `rtl/waitcnt/waitcnt_enc.svh`: the instruction class codes, each
//! profile's counter maxima, legal classes, increments and `s_waitcnt`
//! immediate fields, rendered from [`Class`], [`PARAMS`](super::params::PARAMS)
//! and [`Class::incr`] for the RTL package (`crate::sv`).

use super::isa::{Class, Counter, COUNTERS};
use super::params::{Field, WaitcntParams};
use crate::profile::Profile;
use crate::sv::{bit, camel, lit, Svh};

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
/// counter width (`CntW`, 6).
fn slice(fields: &[Field]) -> String {
    let mut parts: Vec<String> = fields
        .iter()
        .rev()
        .filter(|f| f.width > 0)
        .map(|f| format!("imm[{}:{}]", f.lo + f.width - 1, f.lo))
        .collect();
    let w: u32 = fields.iter().map(|f| f.width).sum();
    if w < 6 {
        parts.insert(0, format!("{}'b{}", 6 - w, "0".repeat((6 - w) as usize)));
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
        "model/src/waitcnt (isa.rs Class, params.rs PARAMS, tlm.rs Class::incr)",
    );
    s.comment("Instruction classes (issue_class_i / ret_class_i).");
    for c in Class::ALL {
        s.line(format!(
            "localparam logic [3:0] Cls{} = {};",
            camel(c.name()),
            lit(4, c.code().into())
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
            .map(|&c| format!("m[{}] = {};", cnt(c), lit(6, c.max(p).into())))
            .collect()
    });
    s.comment("Whether a class code exists on the profile.");
    s.per_profile(
        "cls_legal",
        "logic",
        "logic [3:0] cls",
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
        "logic [3:0] cls",
        "inc",
        &["inc = '0;".into()],
        |p| {
            let mut v = vec!["unique case (cls)".to_string()];
            for c in Class::ALL {
                let incr = c.incr(p);
                let sets: Vec<String> = COUNTERS
                    .iter()
                    .filter(|&&k| incr[k as usize] > 0)
                    .map(|&k| format!("inc[{}] = {};", cnt(k), lit(2, incr[k as usize].into())))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_fields_render_as_slices() {
        let g9 = WaitcntParams::of(Profile::Gfx9);
        assert_eq!(
            slice(&[g9.wait_vm_lo, g9.wait_vm_hi]),
            "{imm[15:14], imm[3:0]}"
        );
        assert_eq!(slice(&[g9.wait_lgkm]), "{2'b00, imm[11:8]}");
        let g11 = WaitcntParams::of(Profile::Gfx11);
        assert_eq!(slice(&[g11.wait_vm_lo, g11.wait_vm_hi]), "imm[15:10]");
        assert_eq!(slice(&[g11.wait_exp]), "{3'b000, imm[2:0]}");
    }
}
