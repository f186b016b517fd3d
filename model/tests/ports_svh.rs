//! The SystemVerilog port lists in `rtl/<unit>/<unit>_ports.svh` are generated
//! from the port tables of the registered units (`gpucosim::units`). This
//! test fails when one is stale; run it with `GPUCOSIM_BLESS=1` to
//! regenerate them.

use std::path::PathBuf;

#[test]
fn rtl_port_lists_match_the_tables() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("rtl");
    let bless = std::env::var_os("GPUCOSIM_BLESS").is_some();
    let mut stale = Vec::new();
    for t in gpucosim::units::port_tables() {
        let path = root.join(t.unit).join(format!("{}_ports.svh", t.unit));
        let want = t.sv_port_list();
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
        "stale port lists (regenerate with GPUCOSIM_BLESS=1 cargo test -p gpucosim-model --test ports_svh): {stale:?}"
    );
}
