//! The RTL files generated from the Rust tables are up to date: the port
//! lists `rtl/<unit>/<unit>_ports.svh` (from each unit's port table) and
//! the encodings `rtl/<unit>/<unit>_enc.svh` (from each unit's `svh.rs`),
//! for every registered unit. Run with `GPUCOSIM_BLESS=1` to regenerate
//! them.

use std::path::PathBuf;

#[test]
fn generated_rtl_files_match_the_tables() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("rtl");
    let bless = std::env::var_os("GPUCOSIM_BLESS").is_some();
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for t in gpucosim::units::port_tables() {
        files.push((
            root.join(t.unit).join(format!("{}_ports.svh", t.unit)),
            t.sv_port_list(),
        ));
    }
    for (unit, text) in gpucosim::units::enc_svh_files() {
        files.push((root.join(unit).join(format!("{unit}_enc.svh")), text));
    }
    assert_eq!(files.len(), 2 * gpucosim::units::UNITS.len());
    let mut stale = Vec::new();
    for (path, want) in files {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, want).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated RTL files (regenerate with GPUCOSIM_BLESS=1 cargo test -p gpucosim --test rtl_generated): {stale:?}"
    );
}
