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
