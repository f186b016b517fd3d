use gpucosim_kernel::*;
use std::path::Path;

fn object(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kernels");
    std::fs::read(dir.join(name)).unwrap()
}

/// A code object's machine, processor and kernels come from its ELF
/// header and symbol table; another machine's ELF is named as such; a
/// file cut short is read without a panic.
#[test]
fn elf_machine_target_and_kernel_symbols() {
    for (file, cpu) in [
        ("helper.gfx900.O2.o", "gfx900"),
        ("helper.gfx1100.O2.o", "gfx1100"),
    ] {
        let o = object(file);
        check_elf(file, &o).unwrap();
        assert_eq!(elf_target(&o), Some(cpu));
        assert_eq!(elf_kernels(&o), Some(["clamp_max".to_string()].into()));
        for n in 0..o.len() {
            assert!(elf_kernels(&o[..n]).is_none_or(|k| k.contains("clamp_max")));
        }
        let mut x86 = o.clone();
        x86[0x12..0x14].copy_from_slice(&62u16.to_le_bytes());
        let e = check_elf("ls", &x86).unwrap_err().to_string();
        assert!(
            e.contains("ls is an ELF file for x86-64 (e_machine 62), not an AMDGPU code object"),
            "{e}"
        );
        x86[0x12..0x14].copy_from_slice(&9999u16.to_le_bytes());
        let e = check_elf("x", &x86).unwrap_err().to_string();
        assert!(e.contains("an ELF file for machine 9999"), "{e}");
        assert!(check_elf("x", &o[..0x10]).is_err());
    }
}
