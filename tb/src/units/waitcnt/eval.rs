//! `gpucosim eval --unit waitcnt` and `gpucosim decode-waitcnt`: wait
//! instructions decoded, and cycle-by-cycle traces of the scoreboard
//! (`docs/waitcnt.md`, "eval").

use crate::testbench::Evaluator;
use crate::units::input::{at, from_value, NumOrName, U};
use gpucosim_model::waitcnt::ports::waitcnt_ports as P;
use gpucosim_model::waitcnt::{
    decode_wait_word, encode, Class, Counter, ErrCode, Thresholds, Wait, WaitcntModel, COUNTERS,
    RET_CHANNELS, WAVES,
};
use gpucosim_model::{Profile, Unit};
use serde::Deserialize;
use serde_json::{json, Value};

/// Decodes `arg` — a 32-bit `s_waitcnt` instruction word (`0xBF8C0070` on
/// gfx9), a gfx11 `s_waitcnt_vscnt null, imm` word (`0xBC7C0005`) or a
/// 16-bit `s_waitcnt` immediate — into its thresholds, e.g.
/// `s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0070 vmcnt=0 expcnt=7 lgkmcnt=0` or
/// `s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5`. A word of another
/// opcode, or an `s_waitcnt_vscnt` on gfx9, is an error.
pub fn decode_waitcnt_text(profile: Profile, arg: &str) -> Result<String, String> {
    let v = U::<32>::parse(arg)?;
    let w = decode_arg(profile, v.u64())?;
    let t = wait_thresholds(profile, w)?;
    let imm = w.imm;
    Ok(if w.vscnt {
        format!("{}   imm=0x{imm:04X} vscnt={}", w.text(profile), t.vs)
    } else {
        format!(
            "{}   imm=0x{imm:04X} vmcnt={} expcnt={} lgkmcnt={}",
            w.text(profile),
            t.vm,
            t.exp,
            t.lgkm
        )
    })
}

/// A number ≤ 0xFFFF is an `s_waitcnt` immediate; a wider one a 32-bit
/// instruction word ([`decode_wait_word`]).
fn decode_arg(profile: Profile, v: u64) -> Result<Wait, String> {
    if v <= 0xFFFF {
        Ok(Wait {
            vscnt: false,
            imm: v as u16,
        })
    } else if v <= 0xFFFF_FFFF {
        decode_wait_word(profile, v as u32)
    } else {
        Err(format!("0x{v:X} is wider than a 32-bit instruction word"))
    }
}

/// The thresholds of a wait the profile has (an `s_waitcnt_vscnt` on a
/// profile without VS_CNT is an error).
fn wait_thresholds(profile: Profile, w: Wait) -> Result<Thresholds, String> {
    w.thresholds(profile)
        .ok_or_else(|| format!("s_waitcnt_vscnt: {profile} has no VS_CNT"))
}

/// A request (`docs/waitcnt.md`, "eval"): a `decode` or a `trace`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Req {
    decode: Option<U<32>>,
    trace: Option<Vec<Cycle>>,
}

/// One cycle of a trace.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Cycle {
    issue: Option<Event>,
    wait: Option<WaitIn>,
    returns: Option<Vec<Event>>,
}

/// An issue or a return: a wave and a class (by name or code).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Event {
    wave: U<4>,
    class: NumOrName<4>,
}

/// A trace's `wait`, in one of its forms ([`eval_wait`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitIn {
    wave: U<4>,
    imm: Option<U<32>>,
    /// A flag with `imm`, a threshold without.
    vscnt: Option<Value>,
    vmcnt: Option<U<6>>,
    expcnt: Option<U<6>>,
    lgkmcnt: Option<U<6>>,
}

/// A class code by name or number.
fn class_code(c: &NumOrName<4>, path: &str) -> Result<u64, String> {
    match c {
        NumOrName::Num(n) => Ok(n.get() as u64),
        NumOrName::Name(s) => Class::from_name(s).map(|c| c.code() as u64).ok_or_else(|| {
            let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
            at(
                path,
                format!(
                    "unknown class `{s}` (expected one of: {}, or a code 0–15)",
                    names.join(", ")
                ),
            )
        }),
    }
}

/// A decode result: the immediate, the thresholds of the fields the
/// instruction has (`null` for the others: `s_waitcnt` has no VS field,
/// `s_waitcnt_vscnt` only it) and LLVM's text.
fn eval_decode(profile: Profile, n: U<32>) -> Result<Value, String> {
    let w = decode_arg(profile, n.u64()).map_err(|e| at("decode", e))?;
    let t = wait_thresholds(profile, w).map_err(|e| at("decode", e))?;
    let (vm, exp, lgkm, vs) = if w.vscnt {
        (Value::Null, Value::Null, Value::Null, json!(t.vs))
    } else {
        (json!(t.vm), json!(t.exp), json!(t.lgkm), Value::Null)
    };
    Ok(json!({
        "imm": w.imm,
        "vmcnt": vm,
        "expcnt": exp,
        "lgkmcnt": lgkm,
        "vscnt": vs,
        "text": w.text(profile),
    }))
}

/// A trace's `wait` (`docs/waitcnt.md`, "eval"): `{"imm": I}` with an
/// optional `"vscnt": true` (I ≤ 0xFFFF, driven onto the ports as given);
/// `{"imm": W}` with W a 32-bit `s_waitcnt` / `s_waitcnt_vscnt null` word (as
/// `decode` takes it); or the field form `{"vmcnt": a, "expcnt": b,
/// "lgkmcnt": c}` (missing fields do not wait) or `{"vscnt": n}`.
fn eval_wait(profile: Profile, wo: &WaitIn, what: &str) -> Result<Wait, String> {
    let fields = [
        ("vmcnt", Counter::Vm, wo.vmcnt),
        ("expcnt", Counter::Exp, wo.expcnt),
        ("lgkmcnt", Counter::Lgkm, wo.lgkmcnt),
    ];
    let first = fields.iter().find(|f| f.2.is_some()).map(|f| f.0);
    let path = |k: &str| format!("{what}.{k}");
    // `vscnt` is a flag beside `imm`, a threshold without it.
    let (flag, vs_field) = match &wo.vscnt {
        None => (None, None),
        Some(Value::Bool(b)) => (Some(*b), None),
        Some(v) => (None, Some(from_value::<U<6>>(v, &path("vscnt"))?)),
    };
    if let Some(imm) = wo.imm {
        if let Some(f) = first.or(vs_field.map(|_| "vscnt")) {
            return Err(at(
                what,
                format!("`imm` and the field `{f}` are two forms of a wait; give one"),
            ));
        }
        let n = imm.u64();
        if n <= 0xFFFF {
            return Ok(Wait {
                vscnt: flag.unwrap_or(false),
                imm: n as u16,
            });
        }
        let w = decode_arg(profile, n).map_err(|e| at(&path("imm"), e))?;
        if flag.is_some_and(|f| f != w.vscnt) {
            let name = if w.vscnt {
                "s_waitcnt_vscnt"
            } else {
                "s_waitcnt"
            };
            return Err(at(
                &path("vscnt"),
                format!("the word 0x{n:08X} is an {name}, which contradicts `vscnt`"),
            ));
        }
        return Ok(w);
    }
    let has_vs = Counter::Vs.width(profile) > 0;
    if let Some(b) = flag {
        return Err(at(what, format!("`vscnt: {b}` needs an `imm`")));
    }
    if let Some(n) = vs_field {
        if let Some(f) = first {
            return Err(at(
                what,
                format!(
                    "`{f}` and `vscnt` in one wait: an s_waitcnt never waits on \
                     VS_CNT and s_waitcnt_vscnt only on it (SPEC §3.2); use two waits"
                ),
            ));
        }
        if !has_vs {
            return Err(at(&path("vscnt"), format!("{profile} has no VS_CNT")));
        }
        let n = n.at_most(
            Counter::Vs.max(profile).into(),
            &path("vscnt"),
            &format!(" on {profile}"),
        )?;
        return Ok(Wait {
            vscnt: true,
            imm: n as u16,
        });
    }
    if first.is_none() {
        return Err(at(
            what,
            format!(
                "expected `imm`, or the fields vmcnt, expcnt, lgkmcnt{}",
                if has_vs { ", or vscnt" } else { "" }
            ),
        ));
    }
    let mut t = Thresholds::none(profile);
    for (key, c, v) in fields {
        if let Some(v) = v {
            let n = v.at_most(c.max(profile).into(), &path(key), &format!(" on {profile}"))? as u32;
            match c {
                Counter::Vm => t.vm = n,
                Counter::Exp => t.exp = n,
                _ => t.lgkm = n,
            }
        }
    }
    Ok(Wait {
        vscnt: false,
        imm: encode(profile, &t),
    })
}

/// A trace being run: the model and its port words, one cycle at a time.
struct TraceRun {
    profile: Profile,
    model: WaitcntModel,
    inp: Vec<u32>,
    out: Vec<u32>,
}

impl TraceRun {
    /// A model after its reset cycle.
    fn new(profile: Profile) -> TraceRun {
        let mut model = WaitcntModel::new(profile);
        let inp = vec![0u32; P::TABLE.in_words()];
        let mut out = vec![0u32; P::TABLE.out_words()];
        model.step(&inp, &mut out); // reset cycle
        TraceRun {
            profile,
            model,
            inp,
            out,
        }
    }

    /// Cycle `n` of the trace: what the unit shows in it.
    fn cycle(&mut self, n: usize, c: &Cycle) -> Result<Value, String> {
        let profile = self.profile;
        let (inp, out) = (&mut self.inp, &mut self.out);
        let what = format!("trace[{n}]");
        inp.fill(0);
        P::rst_ni.set(inp, 1);
        if let Some(i) = &c.issue {
            P::issue_valid_i.set(inp, 1);
            P::issue_wave_i.set(inp, i.wave.u64());
            P::issue_class_i.set(inp, class_code(&i.class, &format!("{what}.issue.class"))?);
        }
        if let Some(wo) = &c.wait {
            let wait = eval_wait(profile, wo, &format!("{what}.wait"))?;
            P::wait_valid_i.set(inp, 1);
            P::wait_wave_i.set(inp, wo.wave.u64());
            P::wait_vscnt_i.set(inp, wait.vscnt as u64);
            P::wait_imm_i.set(inp, wait.imm as u64);
        }
        if let Some(rs) = &c.returns {
            if rs.len() > RET_CHANNELS {
                return Err(at(
                    &format!("{what}.returns"),
                    format!("{} returns, at most {RET_CHANNELS} per cycle", rs.len()),
                ));
            }
            for (k, r) in rs.iter().enumerate() {
                let path = format!("{what}.returns[{k}].class");
                P::ret_valid_i.set_bit(inp, k, true);
                P::ret_wave_i.set_elem(inp, k, r.wave.u64());
                P::ret_class_i.set_elem(inp, k, class_code(&r.class, &path)?);
            }
        }
        self.model.step(inp, out);
        let out = &*out;
        let bits = |p: gpucosim_model::ports::Port| -> Vec<usize> {
            let v = p.get(out);
            (0..WAVES).filter(|w| v >> w & 1 != 0).collect()
        };
        let mut errors = Vec::new();
        let mut counters = Vec::new();
        for w in 0..WAVES {
            for e in ErrCode::from_mask(P::err_o.elem(out, w) as u32) {
                errors.push(json!({"wave": w, "code": e as u32, "name": e.name()}));
            }
            let c = [
                P::vm_cnt_o.elem(out, w),
                P::lgkm_cnt_o.elem(out, w),
                P::exp_cnt_o.elem(out, w),
                P::vs_cnt_o.elem(out, w),
            ];
            if c.iter().any(|&x| x != 0) {
                let mut m = serde_json::Map::new();
                m.insert("wave".into(), json!(w));
                for (cnt, x) in COUNTERS.iter().zip(c) {
                    if cnt.width(profile) > 0 {
                        m.insert(cnt.name().into(), json!(x));
                    }
                }
                counters.push(Value::Object(m));
            }
        }
        let sat = P::issue_sat_o.get(out);
        let sat: Vec<&str> = COUNTERS
            .iter()
            .filter(|c| sat >> (**c as usize) & 1 != 0)
            .map(|c| c.name())
            .collect();
        Ok(json!({
            "cycle": n,
            "issue_ack": P::issue_ack_o.bit(out),
            "issue_sat": sat,
            "stall": bits(P::stall_o),
            "release": bits(P::release_o),
            "errors": errors,
            "counters": counters,
        }))
    }
}

fn eval_trace(profile: Profile, cycles: &[Cycle]) -> Result<Value, String> {
    let mut run = TraceRun::new(profile);
    let mut results = Vec::with_capacity(cycles.len());
    for (n, c) in cycles.iter().enumerate() {
        results.push(run.cycle(n, c)?);
    }
    Ok(json!({ "trace": results }))
}

/// Answers request `n` read straight from `de`, writing its result as
/// compact JSON to `out` (`{"request": n, ...}`, as the evaluator's result
/// with its index): a `trace` cycle by cycle as it is read, so that a trace
/// of millions of cycles takes no more memory than one cycle. Errors are
/// those of the evaluator, with the same paths.
pub fn stream_request<'de, D: serde::Deserializer<'de>>(
    profile: Profile,
    de: D,
    n: usize,
    out: &mut dyn std::io::Write,
) -> Result<(), Streamed> {
    use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
    use std::fmt;

    /// Why a streamed request stopped: a bad request, or an output that
    /// could not be written.
    struct Fail(Streamed);

    struct Cycles<'a> {
        run: &'a mut TraceRun,
        out: &'a mut dyn std::io::Write,
        fail: &'a mut Option<Streamed>,
    }
    /// A value other than the expected shape: the evaluator's message for
    /// it, as the unstreamed request would get.
    macro_rules! other_types {
        ($wrap:expr) => {
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                self.other(Value::from(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                self.other(Value::from(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                self.other(Value::from(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                self.other(Value::from(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                self.other(Value::from(v))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                self.other(Value::Null)
            }
        };
    }

    impl<'de> DeserializeSeed<'de> for Cycles<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl Cycles<'_> {
        fn other<E: serde::de::Error>(self, v: Value) -> Result<(), E> {
            let m = eval_one(self.run.profile, &json!({ "trace": v }))
                .err()
                .unwrap_or_else(|| "`trace`: expected a sequence".into());
            *self.fail = Some(Streamed::Request(m));
            Err(E::custom("stopped"))
        }
    }
    impl<'de> Visitor<'de> for Cycles<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of cycles")
        }
        other_types!(());
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut m = serde_json::Map::new();
            while let Some((k, crate::json::Strict(v))) = map.next_entry::<String, crate::json::Strict>()? {
                m.insert(k, v);
            }
            self.other(Value::Object(m))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut k = 0usize;
            while let Some(crate::json::Strict(v)) = seq.next_element()? {
                let r = from_value::<Cycle>(&v, &format!("trace[{k}]"))
                    .and_then(|c| self.run.cycle(k, &c));
                let r = match r {
                    Ok(r) => r,
                    Err(m) => {
                        *self.fail = Some(Streamed::Request(m));
                        return Err(A::Error::custom("stopped"));
                    }
                };
                let sep = if k == 0 { "" } else { "," };
                let text = serde_json::to_string(&r).expect("JSON values serialise");
                if let Err(e) = write!(self.out, "{sep}{text}") {
                    *self.fail = Some(Streamed::Output(e));
                    return Err(A::Error::custom("stopped"));
                }
                k += 1;
            }
            Ok(())
        }
    }

    struct Req<'a> {
        profile: Profile,
        n: usize,
        out: &'a mut dyn std::io::Write,
        fail: &'a mut Option<Streamed>,
    }
    impl Req<'_> {
        fn other<E: serde::de::Error>(self, v: Value) -> Result<Result<(), Fail>, E> {
            let m = eval_one(self.profile, &v)
                .err()
                .unwrap_or_else(|| "a request is a JSON object of named fields".into());
            Ok(Err(Fail(Streamed::Request(m))))
        }
    }
    impl<'de> Visitor<'de> for Req<'_> {
        type Value = Result<(), Fail>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a request object")
        }
        other_types!(());
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut l = Vec::new();
            while let Some(crate::json::Strict(v)) = seq.next_element()? {
                l.push(v);
            }
            self.other(Value::Array(l))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut decode: Option<Value> = None;
            let mut traced = false;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "trace" if !traced && decode.is_none() => {
                        traced = true;
                        let w = write!(self.out, "{{\"request\":{},\"trace\":[", self.n);
                        if let Err(e) = w {
                            return Ok(Err(Fail(Streamed::Output(e))));
                        }
                        let mut run = TraceRun::new(self.profile);
                        map.next_value_seed(Cycles {
                            run: &mut run,
                            out: &mut *self.out,
                            fail: &mut *self.fail,
                        })?;
                        if let Err(e) = write!(self.out, "]}}") {
                            return Ok(Err(Fail(Streamed::Output(e))));
                        }
                    }
                    "decode" if !traced && decode.is_none() => {
                        decode = Some(map.next_value::<crate::json::Strict>()?.0);
                    }
                    "trace" | "decode" => {
                        let _ = map.next_value::<serde::de::IgnoredAny>()?;
                        return Ok(Err(Fail(Streamed::Request(
                            "expected exactly one of `decode` or `trace`".into(),
                        ))));
                    }
                    other => {
                        // The evaluator's own message for an unknown field.
                        let v = map.next_value::<crate::json::Strict>()?.0;
                        let mut one = serde_json::Map::new();
                        one.insert(other.to_string(), v);
                        let m = eval_one(self.profile, &Value::Object(one))
                            .err()
                            .unwrap_or_else(|| format!("unknown field `{other}`"));
                        return Ok(Err(Fail(Streamed::Request(m))));
                    }
                }
            }
            if traced {
                return Ok(Ok(()));
            }
            let req = match decode {
                Some(d) => json!({ "decode": d }),
                None => json!({}),
            };
            let r = match eval_one(self.profile, &req) {
                Ok(r) => r,
                Err(m) => return Ok(Err(Fail(Streamed::Request(m)))),
            };
            let r = crate::units::indexed(r, self.n);
            let text = serde_json::to_string(&r).expect("JSON values serialise");
            Ok(write!(self.out, "{text}").map_err(|e| Fail(Streamed::Output(e))))
        }
    }

    let mut fail = None;
    let r = de.deserialize_any(Req {
        profile,
        n,
        out,
        fail: &mut fail,
    });
    match (r, fail) {
        (_, Some(f)) => Err(f),
        (Ok(Ok(())), None) => Ok(()),
        (Ok(Err(Fail(f))), None) => Err(f),
        (Err(e), None) => Err(Streamed::Json(crate::json::what_is_wrong(&e))),
    }
}

/// Why [`stream_request`] stopped.
#[derive(Debug)]
pub enum Streamed {
    /// The request is not one the unit answers (the evaluator's message).
    Request(String),
    /// The input is not JSON, or not an object.
    Json(String),
    /// The result could not be written.
    Output(std::io::Error),
}

fn eval_one(profile: Profile, req: &Value) -> Result<Value, String> {
    let q: Req = from_value(req, "")?;
    match (q.decode, &q.trace) {
        (Some(d), None) => eval_decode(profile, d),
        (None, Some(t)) => eval_trace(profile, t),
        _ => Err("expected exactly one of `decode` or `trace`".to_string()),
    }
}

/// `gpucosim eval --unit waitcnt` on `profile`: what the unit does with
/// one request (`docs/waitcnt.md`, "eval"): a `decode` of an immediate or
/// instruction word, or a cycle-by-cycle `trace` of issues, returns and
/// waits.
pub fn evaluator(profile: Profile) -> Evaluator {
    Box::new(move |r| eval_one(profile, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::tests::eval_str;

    fn trace(p: Profile, cycles: Value) -> Vec<Value> {
        let r = eval_str("waitcnt", p, &json!({ "trace": cycles })).unwrap();
        r["trace"].as_array().unwrap().clone()
    }

    #[test]
    fn decode_waitcnt_text_examples() {
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx9, "0xBF8C0070").unwrap(),
            "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0070 vmcnt=0 expcnt=7 lgkmcnt=0"
        );
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBF890007").unwrap(),
            "s_waitcnt vmcnt(0) lgkmcnt(0)   imm=0x0007 vmcnt=0 expcnt=7 lgkmcnt=0"
        );
        assert!(decode_waitcnt_text(Profile::Gfx11, "0xFFF7")
            .unwrap()
            .starts_with("s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"));
        let e = decode_waitcnt_text(Profile::Gfx9, "0xBF890007").unwrap_err();
        assert!(e.contains("not an s_waitcnt"), "{e}");
        assert!(decode_waitcnt_text(Profile::Gfx9, "zz").is_err());
        assert!(decode_waitcnt_text(Profile::Gfx9, "0x1BF8C0070").is_err());
    }

    /// SPEC §3.2: gfx11 `s_waitcnt_vscnt null, imm` = `0xBC7C0000 | imm`,
    /// threshold imm[5:0]; gfx9 has no such instruction and says so in one
    /// line. Fails if the word is rejected on gfx11, accepted on gfx9, or
    /// bits [15:6] reach the threshold.
    #[test]
    fn decode_waitcnt_text_vscnt() {
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBC7C0005").unwrap(),
            "s_waitcnt_vscnt null, 0x5   imm=0x0005 vscnt=5"
        );
        // imm 0xFFC5: bits [15:6] ignored, threshold 0b000101.
        assert_eq!(
            decode_waitcnt_text(Profile::Gfx11, "0xBC7CFFC5").unwrap(),
            "s_waitcnt_vscnt null, 0xffc5   imm=0xFFC5 vscnt=5"
        );
        let e = decode_waitcnt_text(Profile::Gfx9, "0xBC7C0005").unwrap_err();
        assert!(
            e.contains("s_waitcnt_vscnt") && e.contains("gfx9 has no VS_CNT"),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
    }

    /// The eval's `decode` of the SPEC §3.2 words: `s_waitcnt` fields, or
    /// gfx11 `s_waitcnt_vscnt` with only `vscnt`; gfx9 rejects the vscnt word.
    #[test]
    fn eval_decodes_vscnt_words() {
        let r = eval_str(
            "waitcnt",
            Profile::Gfx11,
            &json!([{"decode": "0xBC7C0005"}, {"decode": "0xBF890007"}]),
        )
        .unwrap();
        assert_eq!(
            r[0],
            json!({"imm": 5, "vmcnt": null, "expcnt": null, "lgkmcnt": null,
                   "vscnt": 5, "text": "s_waitcnt_vscnt null, 0x5", "request": 0})
        );
        assert_eq!(
            r[1],
            json!({"imm": 7, "vmcnt": 0, "expcnt": 7, "lgkmcnt": 0,
                   "vscnt": null, "text": "s_waitcnt vmcnt(0) lgkmcnt(0)", "request": 1})
        );
        let r = eval_str(
            "waitcnt",
            Profile::Gfx11,
            &json!({"decode": 0xBC7C_FFC0u32}),
        )
        .unwrap();
        assert_eq!(r["vscnt"], json!(0), "bits [15:6] are ignored");
        let e = eval_str("waitcnt", Profile::Gfx9, &json!({"decode": "0xBC7C0005"})).unwrap_err();
        assert!(
            e.starts_with("`decode`: ") && e.contains("gfx9 has no VS_CNT"),
            "{e}"
        );
    }

    /// A trace's `wait` takes the field form and 32-bit words, as `decode`
    /// does, and they wait as the immediates they stand for.
    #[test]
    fn eval_wait_forms() {
        // gfx9, wave 0 with VM 1 and LGKM 1: lgkmcnt(0) alone stalls,
        // vmcnt(1) lgkmcnt(1) does not.
        let setup = |wait: Value| {
            vec![
                json!({"issue": {"wave": 0, "class": "lds"}}),
                json!({"issue": {"wave": 0, "class": "vmem_load"}}),
                json!({ "wait": wait }),
            ]
        };
        for (wait, stalls) in [
            (json!({"wave": 0, "lgkmcnt": 0}), true),
            (json!({"wave": 0, "vmcnt": 1, "lgkmcnt": 1}), false),
            (json!({"wave": 0, "expcnt": 0}), false),
            (json!({"wave": 0, "vmcnt": 0}), true),
            // s_waitcnt lgkmcnt(0) as a word: 0xBF8C0000 | 0xC07F.
            (json!({"wave": 0, "imm": "0xBF8CC07F"}), true),
            (json!({"wave": 0, "imm": "0xBF8CCF7F"}), false),
            (json!({"wave": 0, "imm": "0xC07F"}), true),
        ] {
            let r = trace(Profile::Gfx9, Value::Array(setup(wait.clone())));
            let want = if stalls { json!([0]) } else { json!([]) };
            assert_eq!(r[2]["stall"], want, "{wait}");
        }
        // gfx11, wave 1 with VS 1 (a store) and VM 0.
        let setup =
            |wait: Value| json!([{"issue": {"wave": 1, "class": "vmem_store"}}, { "wait": wait }]);
        for (wait, stalls) in [
            (json!({"wave": 1, "vscnt": 0}), true),
            (json!({"wave": 1, "vscnt": 1}), false),
            (json!({"wave": 1, "imm": "0xBC7C0000"}), true),
            (json!({"wave": 1, "imm": "0xBC7CFFC1"}), false),
            (json!({"wave": 1, "imm": 0, "vscnt": true}), true),
            // A plain s_waitcnt never waits on VS_CNT (SPEC §3.2).
            (
                json!({"wave": 1, "vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
                false,
            ),
            (json!({"wave": 1, "imm": "0xBF890000"}), false),
        ] {
            let r = trace(Profile::Gfx11, setup(wait.clone()));
            let want = if stalls { json!([1]) } else { json!([]) };
            assert_eq!(r[1]["stall"], want, "{wait}");
        }
        for (p, bad) in [
            (Profile::Gfx9, json!({"wave": 0, "lgkmcnt": 16})),
            (Profile::Gfx11, json!({"wave": 0, "vmcnt": 64})),
            (Profile::Gfx9, json!({"wave": 0, "vscnt": 0})),
            (Profile::Gfx9, json!({"wave": 0, "imm": "0xBC7C0000"})),
            (Profile::Gfx11, json!({"wave": 0, "vmcnt": 0, "vscnt": 0})),
            (Profile::Gfx11, json!({"wave": 0, "imm": 0, "lgkmcnt": 0})),
            (
                Profile::Gfx11,
                json!({"wave": 0, "imm": "0xBF890000", "vscnt": true}),
            ),
            (Profile::Gfx11, json!({"wave": 0, "vscnt": true})),
            (Profile::Gfx11, json!({"wave": 0})),
            (Profile::Gfx11, json!({"wave": 0, "imm": "0xBF8C0000"})),
        ] {
            let e = eval_str("waitcnt", p, &json!({"trace": [{ "wait": bad }]})).unwrap_err();
            assert!(e.starts_with("`trace[0].wait"), "{bad}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    /// `issue_sat` names the counters that are full; `errors` lists every
    /// error raised on a wave in the cycle, not only the lowest code.
    #[test]
    fn eval_names_full_counters_and_every_error() {
        // gfx9 wave 0: 7 exports fill EXP_CNT; a GDS is held back by EXP only.
        let mut cycles: Vec<Value> = (0..7)
            .map(|_| json!({"issue": {"wave": 0, "class": "export"}}))
            .collect();
        cycles.push(json!({"issue": {"wave": 0, "class": "gds"}}));
        cycles.push(json!({"issue": {"wave": 0, "class": "lds"}}));
        let r = trace(Profile::Gfx9, Value::Array(cycles));
        assert_eq!(r[6]["issue_sat"], json!([]));
        assert_eq!(r[7]["issue_sat"], json!(["exp"]));
        assert_eq!(r[7]["issue_ack"], json!(false));
        assert_eq!(r[8]["issue_sat"], json!([]));
        // Both full: 15 LDS and 7 exports on gfx9, then a GDS.
        let mut cycles: Vec<Value> = (0..15)
            .map(|_| json!({"issue": {"wave": 3, "class": "lds"}}))
            .collect();
        cycles.extend((0..7).map(|_| json!({"issue": {"wave": 3, "class": "export"}})));
        cycles.push(json!({"issue": {"wave": 3, "class": "gds"}}));
        let r = trace(Profile::Gfx9, Value::Array(cycles));
        assert_eq!(r[22]["issue_sat"], json!(["lgkm", "exp"]));
        // Wave 2 waits on a load; in one cycle it is offered an illegal
        // class (illegal and busy) and underflows LDS: three errors.
        let r = trace(
            Profile::Gfx9,
            json!([
                {"issue": {"wave": 2, "class": "vmem_load"}},
                {"wait": {"wave": 2, "vmcnt": 0}},
                {"issue": {"wave": 2, "class": 12},
                 "returns": [{"wave": 2, "class": "lds"}, {"wave": 5, "class": 13}]}
            ]),
        );
        assert_eq!(
            r[2]["errors"],
            json!([
                {"wave": 2, "code": 1, "name": "illegal"},
                {"wave": 2, "code": 2, "name": "busy"},
                {"wave": 2, "code": 4, "name": "underflow"},
                {"wave": 5, "code": 1, "name": "illegal"}
            ])
        );
    }

    #[test]
    fn eval_trace_follows_the_worked_example() {
        let req: Value = serde_json::from_str(
            r#"{"trace": [
              {"issue": {"wave": 0, "class": "lds"}},
              {"issue": {"wave": 0, "class": "vmem_load"}},
              {"wait": {"wave": 0, "imm": "0x0070"}},
              {"returns": [{"wave": 0, "class": "lds"}]},
              {},
              {"returns": [{"wave": 0, "class": "vmem_load"}]},
              {}
            ]}"#,
        )
        .unwrap();
        let r = eval_str("waitcnt", Profile::Gfx9, &req).unwrap();
        let r = r["trace"].as_array().unwrap();
        assert_eq!(r.len(), 7);
        assert_eq!(r[0]["issue_ack"], json!(true));
        assert_eq!(r[2]["stall"], json!([0]));
        assert_eq!(
            r[2]["counters"],
            json!([{"wave": 0, "vm": 1, "lgkm": 1, "exp": 0}])
        );
        assert_eq!(r[5]["stall"], json!([0]));
        assert_eq!(r[6]["release"], json!([0]));
        assert_eq!(r[6]["counters"], json!([]));
    }

    #[test]
    fn eval_decode_and_errors() {
        let r = eval_str(
            "waitcnt",
            Profile::Gfx9,
            &json!([{"decode": "0xBF8C0070"}, {"decode": 0xCF7F}]),
        )
        .unwrap();
        assert_eq!(r[0]["text"], json!("s_waitcnt vmcnt(0) lgkmcnt(0)"));
        assert_eq!(r[1]["lgkmcnt"], json!(15));
        for bad in [
            json!({"decode": "0xBF890000"}),
            json!({"trace": [{"issue": {"wave": 16, "class": "lds"}}]}),
            json!({"trace": [{"issue": {"wave": 0, "class": "nope"}}]}),
            json!({"trace": [{"bogus": 1}]}),
            json!({"trace": 3}),
            json!({"decode": 1, "trace": []}),
            json!(7),
        ] {
            let e = eval_str("waitcnt", Profile::Gfx9, &bad).unwrap_err();
            assert!(!e.contains('\n'), "one line: {e}");
        }
        let r = eval_str(
            "waitcnt",
            Profile::Gfx9,
            &json!({"trace": [{"returns": [{"wave": 2, "class": "lds"}]}]}),
        )
        .unwrap();
        assert_eq!(
            r["trace"][0]["errors"],
            json!([{"wave": 2, "code": 4, "name": "underflow"}])
        );
    }
}
