//! Writing SystemVerilog from the models' tables: each unit's `svh.rs`
//! renders `rtl/<unit>/<unit>_enc.svh`, the encodings and per-profile rows
//! its RTL package includes, so that a fact written once in Rust reaches
//! the RTL unchanged. A staleness test (`cosim/tests/rtl_generated.rs`) compares the
//! files with what the tables render; `GPUCOSIM_BLESS=1` rewrites them.

use crate::profile::{Profile, PROFILES};
use std::fmt::Write as _;

/// A generated file being written.
pub struct Svh {
    out: String,
}

impl Svh {
    /// A file of `unit`, generated from `sources` (shown in its header).
    pub fn new(unit: &str, sources: &str) -> Svh {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// Generated from {sources} for the {unit} RTL package. Do not edit:\n\
             // regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated`."
        );
        Svh { out }
    }

    /// Appends a line (indented two spaces, as inside a package).
    pub fn line(&mut self, s: impl AsRef<str>) -> &mut Self {
        let s = s.as_ref();
        if s.is_empty() {
            self.out.push('\n');
        } else {
            let _ = writeln!(self.out, "  {s}");
        }
        self
    }

    /// Appends a `// comment` line.
    pub fn comment(&mut self, s: &str) -> &mut Self {
        for l in s.lines() {
            self.line(format!("// {l}"));
        }
        self
    }

    /// `localparam int unsigned` sizes, one a line with names and values
    /// aligned: `(name, value, comment)`, the comment naming the Rust
    /// constant the value is rendered from.
    pub fn sizes(&mut self, rows: &[(&str, u64, &str)]) -> &mut Self {
        let nw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let vw = rows
            .iter()
            .map(|r| r.1.to_string().len())
            .max()
            .unwrap_or(0);
        for (name, v, comment) in rows {
            let decl = format!("localparam int unsigned {name:<nw$} = {v};");
            if comment.is_empty() {
                self.line(decl);
            } else {
                let pad = vw - v.to_string().len();
                self.line(format!("{decl}{:pad$}  // {comment}", ""));
            }
        }
        self
    }

    /// A function of the profile (`int unsigned gfx`) returning `ty`,
    /// declared with `decl` local variable `v`: one `case` arm per profile
    /// (the first profile's row also the `default`), each the body `row`
    /// renders for it.
    pub fn per_profile(
        &mut self,
        name: &str,
        ty: &str,
        args: &str,
        v: &str,
        prelude: &[String],
        row: impl Fn(Profile) -> Vec<String>,
    ) -> &mut Self {
        let args = if args.is_empty() {
            "int unsigned gfx".to_string()
        } else {
            format!("int unsigned gfx, {args}")
        };
        self.line(format!("function automatic {ty} {name}({args});"));
        self.line(format!("  {ty} {v};"));
        for p in prelude {
            self.line(format!("  {p}"));
        }
        self.line("  case (gfx)");
        for (i, (p, info)) in PROFILES.iter().enumerate() {
            let label = if i == 0 {
                "default".to_string()
            } else {
                info.gfx.to_string()
            };
            self.line(format!("    {label}: begin  // {}", info.name));
            for l in row(*p) {
                self.line(format!("      {l}"));
            }
            self.line("    end");
        }
        self.line("  endcase");
        self.line(format!("  return {v};"));
        self.line("endfunction");
        self.line("")
    }

    /// The text.
    pub fn finish(self) -> String {
        self.out
    }
}

/// `snake_case` → `CamelCase`.
pub fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// SystemVerilog's `$clog2(n)`: the bits of an index below `n` (0 for
/// `n` ≤ 1).
pub const fn clog2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        u64::BITS - (n - 1).leading_zeros()
    }
}

/// The bits of an unsigned value up to `max` (at least 1).
pub const fn bits(max: u64) -> u32 {
    if max == 0 {
        1
    } else {
        u64::BITS - max.leading_zeros()
    }
}

/// A sized literal: `4'd3`.
pub fn lit(width: u32, v: u64) -> String {
    format!("{width}'d{v}")
}

/// A one-bit literal.
pub fn bit(b: bool) -> &'static str {
    if b {
        "1'b1"
    } else {
        "1'b0"
    }
}
