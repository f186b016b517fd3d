use gpucosim_kernel::asm::*;
use std::collections::HashSet;

#[test]
fn reads_assembler_output() {
    let p = parse(
        "\t.text\n\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx900\"\n\t.type\tk,@function\nk:  ; @k\n; %bb.0:\n\ts_load_dword s7, s[4:5], 0x10\n\ts_cbranch_execz .LBB0_2\n.LBB0_2:\n\tds_read2st64_b32 v[2:3], v1 offset1:2 ; a comment\n\ts_endpgm\n.Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n",
    )
    .unwrap();
    assert_eq!(p.target.as_deref(), Some("gfx900"));
    let k = &p.kernels[0];
    assert_eq!(k.name, "k");
    assert_eq!(k.insts.len(), 4);
    assert_eq!(k.labels[".LBB0_2"], 2);
    assert_eq!(k.insts[2].operand_list(), ["v[2:3]", "v1 offset1:2"]);
    assert_eq!(k.insts[0].line, 6);
}

#[test]
fn reads_objdump_output() {
    let p = parse(
        "\n/tmp/r.o:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n0000000000000000 <reduce_sum>:\n\ts_load_b32 s5, s[0:1], 0x10                                // 000000000004: F4000140 F8000010\n\ts_cbranch_execz 10                                         // 000000000034: BFA5000A <reduce_sum+0x60>\n",
    )
    .unwrap();
    let k = &p.kernels[0];
    assert_eq!(k.name, "reduce_sum");
    assert_eq!(k.insts[0].addr, Some(4));
    assert_eq!(k.insts[1].operands, "10");
    assert_eq!(k.at_addr(0x34), Some(1));
}

/// Functions that are not kernels are kept apart, each with the kernel
/// that reaches it: by the descriptors of assembler output, else by
/// their return.
#[test]
fn functions_that_are_not_kernels_are_kept_apart() {
    let helper = "\t.type maximum,@function\nmaximum:\n\tv_max_i32_e32 v0, v0, v1\n\ts_setpc_b64 s[30:31]\n.Lfunc_end0:\n";
    let kernel = "\t.type k,@function\nk:\n\ts_endpgm\n.Lfunc_end1:\n";
    let desc = "\t.amdhsa_kernel k\n\t\t.amdhsa_next_free_vgpr 4\n\t.end_amdhsa_kernel\n";
    for text in [
        format!("{helper}{kernel}{desc}"),
        format!("{helper}{kernel}"),
    ] {
        let p = parse(&text).unwrap();
        assert_eq!(p.kernels.len(), 1);
        assert_eq!(p.kernels[0].name, "k");
        assert_eq!(p.kernels[0].line, 7);
        assert_eq!(p.functions.len(), 1);
        assert_eq!(p.functions[0].code.name, "maximum");
        assert_eq!(p.functions[0].code.line, 2);
        assert_eq!(p.functions[0].called_by, None);
    }
    // A kernel that forms the helper's address reaches it, and through
    // it what it names.
    let calls = "\t.type k,@function\nk:\n\ts_getpc_b64 s[4:5]\n\ts_add_u32 s4, s4, maximum@rel32@lo+4\n\ts_swappc_b64 s[30:31], s[4:5]\n\ts_endpgm\n";
    let inner = "\t.type inner,@function\ninner:\n\ts_setpc_b64 s[30:31]\n";
    let p = parse(&format!(
        "{}{calls}{inner}",
        helper.replace("v_max", "s_add_u32 s4, s4, inner@rel32@lo+4\n\tv_max")
    ))
    .unwrap();
    let by: Vec<(&str, Option<&str>)> = p
        .functions
        .iter()
        .map(|f| (f.code.name.as_str(), f.called_by.as_deref()))
        .collect();
    assert_eq!(by, [("maximum", Some("k")), ("inner", Some("k"))]);
    // Names given (a code object's `.kd` symbols) decide alone.
    let names: HashSet<String> = ["maximum".to_string()].into();
    let p = parse_with(&format!("{helper}{kernel}"), KernelNames::These(&names)).unwrap();
    assert_eq!(p.kernels[0].name, "maximum");
    // Only functions that are not kernels: an error naming them.
    let e = parse(helper).unwrap_err();
    assert!(
        e.starts_with("no kernel found: `maximum` is not a kernel"),
        "{e}"
    );
    assert!(parse("root:x:0:0:root:/root:/bin/bash\n")
        .unwrap_err()
        .starts_with("no function found: not AMDGPU assembly"));
}

#[test]
fn split_keeps_brackets_together() {
    assert_eq!(
        split_top("v1, off, s[0:3], format:[BUF_FMT_32_FLOAT, x], 0"),
        ["v1", "off", "s[0:3]", "format:[BUF_FMT_32_FLOAT, x]", "0"]
    );
    assert!(split_top("").is_empty());
}
