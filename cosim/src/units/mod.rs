//! Per-unit test benches (stimulus, drivers, `eval` front ends), and the
//! dispatch from a unit name to its bench type.

pub mod lds;
pub mod ta;
pub mod waitcnt;

/// Unit names, in command-line order.
pub const UNITS: &[&str] = &["ta", "lds", "waitcnt"];

/// Runs `$body` with `$B` bound to the bench type of unit `$unit`; an unknown
/// or not yet available unit is an input error.
#[macro_export]
macro_rules! with_bench {
    ($unit:expr, $B:ident => $body:expr) => {{
        match $unit {
            "ta" => {
                #[allow(dead_code)]
                type $B = $crate::units::ta::TaBench;
                $body
            }
            "lds" => {
                #[allow(dead_code)]
                type $B = $crate::units::lds::LdsBench;
                $body
            }
            "waitcnt" => {
                #[allow(dead_code)]
                type $B = $crate::units::waitcnt::WaitcntBench;
                $body
            }
            other => Err($crate::error::Error::Input(format!(
                "unknown unit `{other}` (expected one of: {})",
                $crate::units::UNITS.join(", ")
            ))),
        }
    }};
}

/// Applies `one` to a request, or to each request of an array (in order,
/// naming the failing request's index in the error).
pub(crate) fn each_request(
    input: &serde_json::Value,
    mut one: impl FnMut(&serde_json::Value) -> Result<serde_json::Value, String>,
) -> Result<serde_json::Value, String> {
    match input {
        serde_json::Value::Array(reqs) => reqs
            .iter()
            .enumerate()
            .map(|(i, r)| one(r).map_err(|e| format!("request {i}: {e}")))
            .collect::<Result<Vec<_>, _>>()
            .map(serde_json::Value::Array),
        other => one(other),
    }
}

/// Whether `unit` has a registered test bench.
pub fn is_registered(unit: &str) -> bool {
    let r: crate::error::Result<()> = crate::with_bench!(unit, B => Ok(()));
    r.is_ok()
}

/// The `eval` calculator of a unit.
pub fn eval_json(
    unit: &str,
    profile: gpucosim_model::Profile,
    input: &serde_json::Value,
) -> crate::error::Result<serde_json::Value> {
    use crate::error::Error;
    match unit {
        "ta" => ta::eval_json(profile, input).map_err(Error::Input),
        "lds" => lds::eval_json(profile, input).map_err(Error::Input),
        "waitcnt" => waitcnt::eval_json(profile, input).map_err(Error::Input),
        other => Err(Error::Input(format!(
            "unknown unit `{other}` (expected one of: {})",
            UNITS.join(", ")
        ))),
    }
}
