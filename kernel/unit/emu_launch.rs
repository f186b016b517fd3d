use gpucosim_kernel::asm;
use gpucosim_kernel::emu::launch::*;
use gpucosim_model::Profile;

/// A kernel that only ends, with `group` bytes of static LDS and the
/// argument list `args` (metadata YAML lines).
/// The binary32 modes are read as given: the default (absent) is the
/// hardware's 0, a value outside the two-bit field is an error.
#[test]
fn float_modes_are_read_and_checked() {
    let with = |extra: &str| {
        let text = format!(
            "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx900\"\n\t.type k,@function\nk:\n\
             s_endpgm\n.Lfunc_end0:\n\t.amdhsa_kernel k\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n{extra}\t.end_amdhsa_kernel\n"
        );
        Descriptor::of(&asm::parse(&text).unwrap(), "k", Profile::Gfx9)
    };
    let d = with("").unwrap();
    assert_eq!((d.f32_denorm, d.f32_round), (0, 0));
    let d =
        with("\t\t.amdhsa_float_denorm_mode_32 3\n\t\t.amdhsa_float_round_mode_32 1\n").unwrap();
    assert_eq!((d.f32_denorm, d.f32_round), (3, 1));
    let e = with("\t\t.amdhsa_float_denorm_mode_32 7\n").unwrap_err();
    assert_eq!(e, "`.amdhsa_float_denorm_mode_32 7` is not a mode (0 to 3)");
}

fn prog(group: u32, args: &str) -> asm::Program {
    let text = format!(
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx900\"\n\t.type k,@function\nk:\n\
         s_endpgm\n.Lfunc_end0:\n\
         \t.amdhsa_kernel k\n\t\t.amdhsa_group_segment_fixed_size {group}\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\t.end_amdhsa_kernel\n\
         \t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .args:\n{args}    .name: k\n    .reqd_workgroup_size:\n      - 64\n      - 1\n      - 1\n\t.end_amdgpu_metadata\n"
    );
    asm::parse(&text).unwrap()
}

fn arg(name: &str, offset: u32, size: u32, kind: &str, more: &str) -> String {
    format!(
        "      - .name: {name}\n        .offset: {offset}\n        .size: {size}\n        .value_kind: {kind}\n{more}"
    )
}

/// out (global), s (a 16-byte struct), a (`__local`, no
/// `.pointee_align`), b (`__local`, 16-byte aligned), the dynamic LDS
/// size; 10 bytes of static LDS.
fn locals() -> asm::Program {
    let args = [
        arg(
            "out",
            0,
            8,
            "global_buffer",
            "        .address_space: global\n",
        ),
        arg("s", 8, 16, "by_value", ""),
        arg(
            "a",
            24,
            4,
            "dynamic_shared_pointer",
            "        .address_space: local\n",
        ),
        arg(
            "b",
            28,
            4,
            "dynamic_shared_pointer",
            "        .address_space: local\n        .pointee_align: 16\n",
        ),
        arg("dyn", 32, 4, "hidden_dynamic_lds_size", ""),
    ]
    .concat();
    prog(10, &args)
}

fn parse(p: &asm::Program, args: &str, extra: &str) -> Result<Launch, String> {
    Launch::parse(
        &format!(r#"{{"grid": [64], "args": {args}{extra}}}"#),
        p,
        Profile::Gfx9,
        None,
        None,
    )
}

/// A sample is of the launch's work-groups: none, or more than it has,
/// is an error rather than a count quietly changed.
#[test]
fn a_sample_is_between_one_and_the_work_groups() {
    let p = prog(0, "");
    let sample = |n: u64| {
        Launch::parse(
            &format!(r#"{{"grid": [256], "args": {{}}, "run": {{"sample": {n}}}}}"#),
            &p,
            Profile::Gfx9,
            None,
            None,
        )
    };
    assert_eq!(sample(2).map(|l| l.run.len()), Ok(2));
    for n in [0, 5] {
        assert_eq!(
            sample(n).unwrap_err(),
            format!("`run.sample` {n} is not between 1 and the launch's 4 work-group(s)")
        );
    }
}

/// The launch's `seed` is a whole number (or a `0x` hex string, as the
/// launch's other numbers), and `kernel` a name: anything else is an
/// error, not seed 1 or the file's only kernel.
#[test]
fn a_seed_or_kernel_of_the_wrong_kind_is_an_error() {
    let p = prog(0, "");
    let seed = |v: &str| parse(&p, "{}", &format!(r#", "seed": {v}"#)).map(|l| l.seed);
    assert_eq!(seed("7"), Ok(7));
    assert_eq!(seed(r#""0x10""#), Ok(16));
    assert_eq!(seed("-1").unwrap_err(), "`seed` is never negative");
    for bad in [
        "1.5",
        r#""abc""#,
        "true",
        "null",
        "18446744073709551616",
        r#""7""#,
    ] {
        assert!(seed(bad).is_err(), "seed {bad} is refused");
    }
    assert_eq!(
        parse(&p, "{}", r#", "kernel": 5"#).unwrap_err(),
        "`kernel` must be a string: the kernel's name"
    );
}

/// An `int` argument may be negative (its two's complement); a size,
/// count, offset or word never is, and a work-group listed in `run`
/// runs once.
#[test]
fn negative_numbers_only_for_values_and_each_work_group_once() {
    let p = prog(0, &arg("n", 0, 4, "by_value", ""));
    let l = parse(&p, r#"{"n": -5}"#, "").unwrap();
    assert_eq!(&kernarg(&l)[..4], &(-5i32).to_le_bytes());
    let l = parse(
        &p,
        r#"{"n": {"fields": [{"offset": 0, "size": 4, "value": -2}]}}"#,
        "",
    )
    .unwrap();
    assert_eq!(&kernarg(&l)[..4], &(-2i32).to_le_bytes());
    for (args, extra, want) in [
        (
            r#"{"n": 1}"#,
            r#", "lds_size": -1"#,
            "`lds_size` is never negative",
        ),
        (
            r#"{"n": 1}"#,
            r#", "run": {"sample": -1}"#,
            "`run.sample` is never negative",
        ),
        (
            r#"{"n": {"fields": [{"offset": -1, "size": 4, "value": 1}]}}"#,
            "",
            "`args.n.fields[0].offset` is never negative",
        ),
        (
            r#"{"n": {"dwords": [-1]}}"#,
            "",
            "`args.n.dwords[0]` is never negative",
        ),
        (r#"{"n": -2147483649}"#, "", "does not fit in 4 bytes"),
    ] {
        let e = parse(&p, args, extra).unwrap_err();
        assert!(e.contains(want), "{args}{extra}: {e}");
    }
    let grid = |run: &str| {
        Launch::parse(
            &format!(r#"{{"grid": [256], "args": {{"n": 1}}, "run": {run}}}"#),
            &p,
            Profile::Gfx9,
            None,
            None,
        )
    };
    assert_eq!(grid("[[0], [3], [1]]").unwrap().run.len(), 3);
    assert_eq!(
        grid("[[0], [3], [1, 0], [3, 0, 0]]").unwrap_err(),
        "`run[3]` is work-group [3, 0, 0] again (`run[1]`): each runs once"
    );
}

const S: &str = r#""s": {"dwords": [1, 2, 3, 4]}"#;

fn kernarg(l: &Launch) -> Vec<u8> {
    l.memory().unwrap().region("kernarg").unwrap().bytes.clone()
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

#[test]
fn local_arguments_are_laid_out_after_the_static_segment() {
    let p = locals();
    let m = metadata(&p, "k").unwrap();
    assert_eq!(m.args[3].pointee_align, Some(16));
    assert_eq!(m.args[2].pointee_align, None);
    assert_eq!(m.args[2].address_space.as_deref(), Some("local"));
    let l = parse(
        &p,
        &format!(r#"{{"out": {{"size": 4}}, {S}, "a": {{"local": 6}}, "b": {{"local": 64}}}}"#),
        "",
    )
    .unwrap();
    // a: 10 aligned up to 4 (no `.pointee_align`) = 12, ends at 18; b:
    // 18 aligned up to 16 = 32, ends at 96.
    let want = [("a", 12, 6, 4), ("b", 32, 64, 16)];
    let got: Vec<(&str, u32, u32, u32)> = l
        .lds_args
        .iter()
        .map(|a| (a.name.as_str(), a.offset, a.size, a.align))
        .collect();
    assert_eq!(got, want);
    assert_eq!(l.lds_size, 96);
    let ka = kernarg(&l);
    assert_eq!((u32_at(&ka, 24), u32_at(&ka, 28)), (12, 32));
    // hidden_dynamic_lds_size: everything past the static segment.
    assert_eq!(u32_at(&ka, 32), 86);
    // The struct takes all 16 bytes.
    let s: Vec<u32> = (0..4).map(|i| u32_at(&ka, 8 + 4 * i)).collect();
    assert_eq!(s, [1, 2, 3, 4]);
    // A larger `lds_size` grows the dynamic size; a smaller one is an
    // error with the numbers.
    let a = r#"{"out": {"size": 4}, "s": {"dwords": [1, 2, 3, 4]}, "a": {"local": 6}, "b": {"local": 64}}"#;
    let l = parse(&p, a, r#", "lds_size": 200"#).unwrap();
    assert_eq!(u32_at(&kernarg(&l), 32), 190);
    let e = parse(&p, a, r#", "lds_size": 95"#).unwrap_err();
    assert_eq!(
        e,
        "`lds_size` 95 is less than the 96 bytes the kernel's local memory and `__local` arguments take (10 static, `a` 6 at 12, `b` 64 at 32)"
    );
    let e = parse(&p, a, r#", "lds_size": 65540"#).unwrap_err();
    assert!(e.contains("more than the 65536 bytes of LDS"), "{e}");
}

#[test]
fn a_local_argument_takes_its_size_in_bytes_only() {
    let p = locals();
    for (a, want) in [
        (
            r#"{"size": 64}"#,
            "`args.a` is a `__local` pointer (dynamic_shared_pointer), not a buffer: give its size in LDS bytes as {\"local\": BYTES}",
        ),
        (
            "64",
            "`args.a` is a `__local` pointer (dynamic_shared_pointer): give its size in LDS bytes as {\"local\": BYTES}",
        ),
        (r#"{"local": 0}"#, "`args.a.local` 0 is not a size"),
        (r#"{"local": 65536}"#, "end past the 65536 bytes of LDS"),
    ] {
        let e = parse(
            &p,
            &format!(r#"{{"out": {{"size": 4}}, {S}, "a": {a}, "b": {{"local": 64}}}}"#),
            "",
        )
        .unwrap_err();
        assert!(e.contains(want), "{a}: {e}");
    }
    // A `{"local": …}` for a global buffer or a value.
    let e = parse(
        &p,
        &format!(r#"{{"out": {{"local": 4}}, {S}, "a": {{"local": 4}}, "b": {{"local": 4}}}}"#),
        "",
    )
    .unwrap_err();
    assert!(e.contains("`args.out.local` is not a buffer field"), "{e}");
    let e = parse(
        &p,
        r#"{"out": {"size": 4}, "s": {"local": 4}, "a": {"local": 4}, "b": {"local": 4}}"#,
        "",
    )
    .unwrap_err();
    assert!(
        e.contains("`args.s` is a 16-byte value (by_value), not a `__local` pointer"),
        "{e}"
    );
}

#[test]
fn a_struct_takes_every_byte_exactly_once() {
    let p = locals();
    let with = |s: &str| {
        parse(
            &p,
            &format!(
                r#"{{"out": {{"size": 4}}, "s": {s}, "a": {{"local": 4}}, "b": {{"local": 4}}}}"#
            ),
            "",
        )
    };
    let bytes: Vec<u8> = (1..=16).collect();
    let b = format!(r#"{{"bytes": {bytes:?}}}"#);
    let d = r#"{"dwords": ["0x04030201", "0x08070605", "0x0c0b0a09", 269422093]}"#;
    let f = r#"{"fields": [{"offset": 8, "size": 8, "value": "0x100f0e0d0c0b0a09"}, {"offset": 0, "size": 2, "value": "0x0201"}, {"offset": 2, "size": 1, "value": 3}, {"offset": 3, "size": 1, "value": 4}, {"offset": 4, "size": 4, "value": "0x08070605"}]}"#;
    for s in [b.as_str(), d, f] {
        let l = with(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(kernarg(&l)[8..24], bytes[..], "{s}");
    }
    for (s, want) in [
        (
            "5",
            "`args.s` is a 16-byte struct: give {\"bytes\": […]}, {\"dwords\": […]} or {\"fields\": ",
        ),
        (r#"{"bytes": [1, 2]}"#, "`args.s.bytes` has 2 values; the argument is 16 bytes"),
        (r#"{"dwords": [1, 2, 3]}"#, "`args.s.dwords` has 3 values; the argument is 4 dwords"),
        (
            r#"{"fields": [{"offset": 0, "size": 8, "value": 1}, {"offset": 12, "size": 2, "value": 1}, {"offset": 15, "size": 1, "value": 1}]}"#,
            "`args.s.fields` leave bytes 8 to 11, 14 of the 16-byte argument unset",
        ),
        (
            r#"{"fields": [{"offset": 0, "size": 8, "value": 1}, {"offset": 6, "size": 4, "value": 1}]}"#,
            "`args.s.fields[1]` overlaps `args.s.fields[0]` at bytes 6 to 7",
        ),
        (
            r#"{"fields": [{"offset": 12, "size": 8, "value": 1}]}"#,
            "`args.s.fields[0]` (bytes 12 to 19) runs past the 16-byte argument",
        ),
        (
            r#"{"fields": [{"offset": 0, "size": 3, "value": 1}]}"#,
            "`args.s.fields[0].size` 3 is not 1, 2, 4 or 8",
        ),
        (
            r#"{"fields": [{"offset": 0, "size": 1, "value": 256}]}"#,
            "`args.s.fields[0].value` 256 does not fit in 1 bytes",
        ),
        (
            r#"{"size": 16}"#,
            "`args.s` is a 16-byte value (by_value), not a buffer",
        ),
        (r#"{"bytes": [], "dwords": []}"#, "(exactly one of them)"),
    ] {
        let e = with(s).unwrap_err();
        assert!(e.contains(want), "{s}: {e}");
    }
}

#[test]
fn an_argument_kind_the_emulator_cannot_represent_is_an_error() {
    for (a, want) in [
        (
            arg("img", 0, 8, "image", "        .address_space: global\n"),
            "argument `img` has `.value_kind: image`: the emulator cannot represent it",
        ),
        (
            arg("q", 0, 8, "queue", ""),
            "argument `q` has `.value_kind: queue`",
        ),
        (
            arg(
                "p",
                0,
                8,
                "global_buffer",
                "        .address_space: local\n",
            ),
            "argument `p` is a `global_buffer` in address space `local`",
        ),
        (
            arg(
                "l",
                0,
                4,
                "dynamic_shared_pointer",
                "        .address_space: global\n",
            ),
            "argument `l` is a `dynamic_shared_pointer` in address space `global`",
        ),
        (
            arg("h", 0, 8, "hidden_frobnicator", ""),
            "`.value_kind: hidden_frobnicator`, which the emulator does not know",
        ),
    ] {
        let p = prog(0, &a);
        let e = Launch::parse(r#"{"grid": [64]}"#, &p, Profile::Gfx9, None, None).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    // A key given twice is named, not the last one taken.
    let p = prog(0, "");
    let e = Launch::parse(
        r#"{"grid": [64], "grid": [128]}"#,
        &p,
        Profile::Gfx9,
        None,
        None,
    )
    .unwrap_err();
    assert!(e.starts_with("gives key `grid` twice at line 1"), "{e}");
    // A constant buffer is a buffer.
    let p = prog(
        0,
        &arg(
            "c",
            0,
            8,
            "global_buffer",
            "        .address_space: constant\n",
        ),
    );
    let l = Launch::parse(
        r#"{"grid": [64], "args": {"c": {"size": 4}}}"#,
        &p,
        Profile::Gfx9,
        None,
        None,
    )
    .unwrap();
    assert!(matches!(l.args[0].1, ArgValue::Buffer(_)));
}
