//! The SystemVerilog package, reference modules and example testbenches
//! in `dpi/sv/` and `dpi/examples/` are what the port tables generate, and
//! the C header's per-unit declarations what the unit registry does;
//! `GPUCOSIM_BLESS=1` rewrites them.

use std::path::Path;

#[test]
fn generated_sv_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("GPUCOSIM_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (rel, text) in
        gpucosim_dpi::generate::files(&gpucosim_tb::units::port_tables().collect::<Vec<_>>())
    {
        let path = root.join(&rel);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(rel);
        }
    }
    assert!(
        stale.is_empty(),
        "stale: dpi/{} (regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`)",
        stale.join(", dpi/")
    );
}

#[test]
fn c_header_declares_every_unit() {
    use gpucosim_dpi::generate::{c_header_units, C_UNITS_BEGIN, C_UNITS_END};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/gpucosim.h");
    let text = std::fs::read_to_string(&path).unwrap();
    let (a, rest) = text
        .split_once(&format!("{C_UNITS_BEGIN}\n"))
        .expect("the header's per-unit block begins");
    let (old, b) = rest
        .split_once(&format!("{C_UNITS_END}\n"))
        .expect("the header's per-unit block ends");
    let block = c_header_units(gpucosim_tb::units::UNITS);
    if old == block {
        return;
    }
    let bless = std::env::var_os("GPUCOSIM_BLESS").is_some_and(|v| v == "1");
    assert!(
        bless,
        "stale: dpi/include/gpucosim.h (regenerate with `GPUCOSIM_BLESS=1 cargo test -p gpucosim-dpi --test generated`)"
    );
    std::fs::write(
        &path,
        format!("{a}{C_UNITS_BEGIN}\n{block}{C_UNITS_END}\n{b}"),
    )
    .unwrap();
}
