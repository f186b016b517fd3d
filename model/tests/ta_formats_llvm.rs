//! Cross-checks the data-format tables of `model/src/ta/formats.rs` against
//! LLVM's assembler. Fails if `llvm-mc` is installed and disagrees; prints a
//! line saying nothing was checked if it is absent.

use gpucosim_model::ta::formats::{gfx11_format, GFX11_FORMATS, GFX9_DFMT};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

/// Runs llvm-mc on `src` for `cpu` and returns its stdout lines that hold an
/// instruction.
fn mc(cpu: &str, src: &str, encoding: bool) -> Vec<String> {
    let mut args = vec!["-arch=amdgcn".to_string(), format!("-mcpu={cpu}")];
    if encoding {
        args.push("-show-encoding".into());
    }
    let mut child = Command::new(LLVM_MC)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "llvm-mc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.contains("tbuffer_load_format_x"))
        .map(str::to_string)
        .collect()
}

/// The text between `format:[` and `]`, if any.
fn symbolic(line: &str) -> Option<&str> {
    let s = line.split("format:[").nth(1)?;
    s.split(']').next()
}

fn available() -> bool {
    if Path::new(LLVM_MC).exists() {
        true
    } else {
        println!("{LLVM_MC} not found: format tables NOT checked against LLVM");
        false
    }
}

#[test]
fn gfx11_unified_format_table_matches_llvm() {
    if !available() {
        return;
    }
    // Disassembly direction: every 7-bit MTBUF code prints as LLVM names it.
    let src: String = (0..128)
        .map(|n| format!("tbuffer_load_format_x v1, off, s[0:3], 0 format:{n}\n"))
        .collect();
    let lines = mc("gfx1100", &src, false);
    assert_eq!(lines.len(), 128);
    for (code, line) in lines.iter().enumerate() {
        let ours =
            gfx11_format(code as u32).map(|(d, n)| format!("BUF_FMT_{}_{}", d.name(), n.name()));
        match (code, symbolic(line)) {
            (0, llvm) => assert_eq!(llvm, Some("BUF_FMT_INVALID"), "{line}"),
            // LLVM omits the default format, BUF_FMT_8_UNORM = 1.
            (1, None) => assert_eq!(ours.as_deref(), Some("BUF_FMT_8_UNORM")),
            (_, llvm) => assert_eq!(ours.as_deref(), llvm, "code {code}: {line}"),
        }
    }
    // Assembly direction: each named format encodes to its code (bits [25:19]
    // of the first dword).
    let src: String = GFX11_FORMATS
        .iter()
        .map(|(d, n)| {
            format!(
                "tbuffer_load_format_x v1, off, s[0:3], 0 format:[BUF_FMT_{}_{}]\n",
                d.name(),
                n.name()
            )
        })
        .collect();
    let lines = mc("gfx1100", &src, true);
    assert_eq!(lines.len(), GFX11_FORMATS.len());
    for (i, line) in lines.iter().enumerate() {
        let enc = line.split("encoding: [").nth(1).expect("encoding shown");
        let b: Vec<u32> = enc
            .trim_end_matches(']')
            .split(',')
            .take(4)
            .map(|x| u32::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap())
            .collect();
        let w0 = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
        assert_eq!((w0 >> 19) & 0x7F, i as u32 + 1, "{line}");
    }
}

#[test]
fn gfx9_dfmt_table_matches_llvm() {
    if !available() {
        return;
    }
    let src: String = (0..16)
        .map(|n| format!("tbuffer_load_format_x v1, off, s[0:3], dfmt:{n}, nfmt:1, 0\n"))
        .collect();
    let lines = mc("gfx900", &src, false);
    assert_eq!(lines.len(), 16);
    for (dfmt, line) in lines.iter().enumerate() {
        let sym = symbolic(line).expect("nfmt 1 is always printed");
        let data = sym
            .split(',')
            .find_map(|s| s.strip_prefix("BUF_DATA_FORMAT_"))
            // LLVM omits the default data format, BUF_DATA_FORMAT_8 = 1.
            .unwrap_or("8");
        assert_eq!(GFX9_DFMT[dfmt].name(), data, "dfmt {dfmt}: {line}");
    }
}
