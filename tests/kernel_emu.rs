//! Compiled kernels emulated (`tests/fixtures/kernels/emu/`, regenerated
//! by its `regenerate.sh`; the tests need no clang): the emulation computes
//! what the kernels compute, the profile counts the bank conflicts and line
//! requests derived by hand below, the kernels' LDS and buffer traffic
//! passes lock-step on the built-in RTL, and every LDS and TA broken-RTL
//! fixture is caught by a kernel run.

use crate::gpucosim_bin;
use gpucosim::kernel::emu::launch::Launch;
use gpucosim::kernel::emu::profile::{DsStat, Row};
use gpucosim::kernel::emu::{emulate, Emulation};
use gpucosim_tests::{quick, BrokenFixture};
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    gpucosim_tests::repo_root().join("tests/fixtures/kernels/emu")
}

/// Emulates `kernel` of `NAME.TARGET.s` with `LAUNCH.launch.json`.
fn run(name: &str, target: &str, kernel: &str, launch: &str) -> Emulation {
    let text = std::fs::read_to_string(dir().join(format!("{launch}.launch.json"))).unwrap();
    run_text(name, target, kernel, &text)
}

/// Emulates `kernel` of `NAME.TARGET.s` with the launch `text`.
fn run_text(name: &str, target: &str, kernel: &str, text: &str) -> Emulation {
    let file = dir().join(format!("{name}.{target}.s"));
    let (prog, profile) = gpucosim::kernel::read(&file, None).unwrap();
    let l = Launch::parse(text, &prog, profile, Some(kernel), None)
        .unwrap_or_else(|e| panic!("{name}.{target} {kernel}: {e}"));
    emulate(&file.display().to_string(), &prog, profile, l, false)
        .unwrap_or_else(|e| panic!("{name}.{target} {kernel}: {e}"))
}

/// A buffer's dwords after the run (all known).
fn words(e: &Emulation, name: &str) -> Vec<u32> {
    let (_, w) = e.buffers.iter().find(|(n, _)| n == name).unwrap();
    w.iter()
        .enumerate()
        .map(|(i, x)| x.unwrap_or_else(|| panic!("{name}[{i}] is symbolic")))
        .collect()
}

/// The LDS rows of a profile, in kernel order.
fn lds_rows(e: &Emulation) -> Vec<(&Row, &DsStat)> {
    e.profile
        .instructions
        .iter()
        .filter_map(|r| r.lds.as_ref().map(|d| (r, d)))
        .collect()
}

const TRANSPOSE_TARGETS: [&str; 4] = ["gfx900", "gfx1100", "gfx1100w64", "gfx1100cu"];

#[test]
fn emulation_computes_what_the_kernels_compute() {
    for t in TRANSPOSE_TARGETS {
        for k in ["transpose32", "transpose33"] {
            let e = run("transpose", t, k, "transpose");
            let (i, o) = (words(&e, "in"), words(&e, "out"));
            for y in 0..64 {
                for x in 0..64 {
                    assert_eq!(o[x * 64 + y], i[y * 64 + x], "{t} {k} out[{x}][{y}]");
                }
            }
        }
    }
    for t in ["gfx900", "gfx1100"] {
        let e = run("matmul", t, "matmul", "matmul");
        let (a, b, c) = (words(&e, "a"), words(&e, "b"), words(&e, "c"));
        for r in 0..32 {
            for col in 0..32 {
                let want = (0..32).fold(0u32, |s, k| {
                    s.wrapping_add(a[r * 32 + k].wrapping_mul(b[k * 32 + col]))
                });
                assert_eq!(c[r * 32 + col], want, "{t} c[{r}][{col}]");
            }
        }
        let e = run("histogram", t, "histogram", "histogram");
        let (d, h) = (words(&e, "data"), words(&e, "hist"));
        for (bin, &got) in h.iter().enumerate() {
            let want = d[..500].iter().filter(|&&x| x as usize & 63 == bin).count();
            assert_eq!(got as usize, want, "{t} hist[{bin}]");
        }
        let e = run("edge", t, "lds_edge", "edge");
        let (i, o) = (words(&e, "in"), words(&e, "out"));
        for g in 0..128 {
            // The last lane of a group reads past the allocation: 0.
            let next = if g % 64 == 63 { 0 } else { i[g + 1] };
            assert_eq!(o[g], i[g] + next, "{t} out[{g}]");
        }
        let e = run("unpack", t, "unpack24", "unpack");
        let (i, o) = (words(&e, "in"), words(&e, "out"));
        let bytes: Vec<u8> = i.iter().flat_map(|w| w.to_le_bytes()).collect();
        for g in 0..128 {
            let b = &bytes[3 * g..3 * g + 3];
            let want = u32::from_le_bytes([b[0], b[1], b[2], 0]);
            assert_eq!(o[g], want, "{t} out[{g}]");
        }
        let e = run("records", t, "records", "records");
        let o = words(&e, "out");
        for (j, &x) in o.iter().enumerate() {
            assert_eq!(x as usize, j % 16, "{t} records out[{j}]");
        }
        let e = run("records", t, "staging", "staging");
        let o = words(&e, "out");
        for (g, &x) in o.iter().enumerate() {
            let g = g as u32;
            let want = (0..4).fold(0u32, |acc, k| {
                acc.wrapping_mul(7).wrapping_add((3 - k) * 1000 + g)
            });
            assert_eq!(x, want, "{t} staging out[{g}]");
        }
    }
    for t in ["gfx900", "gfx1100", "gfx1100w64"] {
        let e = run("reduce", t, "reduce", "reduce");
        let p = words(&e, "partial");
        // in[i] = i for i < 700; past n the raw buffer reads 0.
        for (g, &x) in p.iter().enumerate() {
            let want: u32 = (256 * g as u32..(256 * g as u32 + 256).min(700)).sum();
            assert_eq!(x, want, "{t} partial[{g}]");
        }
    }
}

/// The 32×32 tile's column read `tile[lx][ly]` is dword `32 lx + ly`.
/// 32 banks: the 32 lanes of a pass (lx = 0..31, one ly) all hit bank ly,
/// 32 cycles instead of 1. 64 banks (gfx11 WGP mode): bank `ly + 32 (lx
/// mod 2)`, two banks of 16, 16 cycles. The padded tile's dword `33 lx +
/// ly` puts the 32 lanes on 32 different banks (33 is odd, so also mod
/// 64): one cycle a pass. The row writes `tile[ly][lx]` are consecutive:
/// one cycle a pass. Grid 64×64, work-groups of 32×32: 4 groups of 1024
/// work-items, so 64 executions of each instruction in wave64, 128 in
/// wave32.
#[test]
fn transpose_bank_conflicts_as_derived_by_hand() {
    // target, executions, cycles of one column read, its minimum.
    for (t, execs, cycles, min) in [
        ("gfx900", 64, 64, 2),
        ("gfx1100", 128, 16, 1),
        ("gfx1100w64", 64, 32, 2),
        ("gfx1100cu", 128, 32, 1),
    ] {
        let e = run("transpose", t, "transpose32", "transpose");
        let rows = lds_rows(&e);
        assert_eq!(rows.len(), 2, "{t}");
        let (w, r) = (rows[0].1, rows[1].1);
        assert_eq!((w.executions, w.conflict_cycles), (execs, 0), "{t} write");
        assert_eq!(r.executions, execs, "{t}");
        assert_eq!(r.cycles, execs * cycles, "{t} read cycles");
        assert_eq!(r.min_cycles, execs * min, "{t} read minimum");
        assert_eq!(r.conflict_cycles, execs * (cycles - min), "{t}");
        assert_eq!(r.worst_conflict_cycles, cycles - min, "{t}");
        // The worst execution's dwords sit on 1 (32 banks) or 2 banks.
        let busy: Vec<u32> = r.worst_banks.iter().copied().filter(|&n| n > 0).collect();
        let per_bank = if e.profile.banks == 32 { 32 } else { 16 };
        assert!(busy.iter().all(|&n| n == per_bank), "{t}: {busy:?}");
        let e = run("transpose", t, "transpose33", "transpose");
        for (row, d) in lds_rows(&e) {
            assert_eq!(d.conflict_cycles, 0, "{t} transpose33 line {}", row.line);
            assert_eq!(
                d.cycles,
                d.executions
                    * (if t.ends_with("w64") || t == "gfx900" {
                        2
                    } else {
                        1
                    })
            );
        }
        assert_eq!(e.profile.total.lds_conflict_cycles, 0);
    }
}

/// matmul (16×16 tiles): `ta[ty][k]` is one dword per row of 16 lanes, the
/// two rows of a 32-lane pass 16 dwords apart (different banks):
/// broadcast, one cycle a pass; `tb[k][tx]` is 16 consecutive dwords, the
/// two rows of a pass the same ones: one cycle; the tile writes are 32
/// consecutive dwords: one cycle. No conflict anywhere.
///
/// reduce (interleaved addressing, 256 work-items): step s (1, 2, …, 128)
/// runs lanes lid < 128/s; the read `ds_read2 … offset1:s` takes dwords
/// `2s·lid` and `2s·lid + s`, the write dword `2s·lid`. Per 32-lane pass,
/// cycles = the most distinct dwords on one bank, minimum = distinct
/// dwords / banks (at least 1). gfx9 (32 banks, wave64, a wave has two
/// passes; steps 1 and 2 fill whole passes):
///
/// | s   | lanes | write cycles / min (per exec) | read cycles / min |
/// |-----|-------|--------------------|-------------------|
/// | 1   | 128 (2 waves) | 2·2 / 2·1   | 2·2 / 2·2 (64 consecutive dwords) |
/// | 2   | 64    | 2·4 / 2·1 (stride 4: 8 banks) | 2·4 / 2·2 (even dwords: 16 banks × 4) |
/// | 4   | 32    | 8 / 1   | 8 / 2 |
/// | 8   | 16    | 8 / 1 (2 banks × 8) | 8 / 1 (4 banks × 8) |
/// | 16  | 8     | 8 / 1   | 8 / 1 (2 banks × 8) |
/// | 32  | 4     | 4 / 1   | 8 / 1 (bank 0) |
/// | 64  | 2     | 2 / 1   | 4 / 1 |
/// | 128 | 1     | 1 / 1   | 2 / 1 |
///
/// gfx11 (64 banks, wave32, one pass a wave): writes s = 1: 1/1 (stride 2
/// on 64 banks); s = 2: 2/1; s = 4 … 32: 4/1; 64: 2/1; 128: 1/1. Reads s =
/// 1: 1/1; 2: 2/1; 4 … 64: 4/1; 128: 2/1.
#[test]
fn matmul_and_reduce_conflicts_as_derived_by_hand() {
    for t in ["gfx900", "gfx1100"] {
        let e = run("matmul", t, "matmul", "matmul");
        let rows = lds_rows(&e);
        assert_eq!(rows.len(), 4, "{t}: two tile writes, two reads");
        for (r, d) in &rows {
            assert_eq!(d.conflict_cycles, 0, "{t} line {}", r.line);
        }
        // 4 groups × waves × 2 tiles × 16 k.
        let waves = if t == "gfx900" { 4 } else { 8 };
        assert_eq!(rows[2].1.executions, 4 * waves * 2 * 16, "{t}");
    }
    // Per execution (cycles, minimum) of the loop's read and write of each
    // step, in program order (read s, write s, …), and the executions of
    // step 1 and 2 per group (waves with an active lane).
    let gfx9 = [
        (4, 4),
        (4, 2), // s = 1: per pass 2/2 and 2/1
        (8, 4),
        (8, 2), // s = 2
        (8, 2),
        (8, 1), // s = 4
        (8, 1),
        (8, 1), // s = 8
        (8, 1),
        (8, 1), // s = 16
        (8, 1),
        (4, 1), // s = 32
        (4, 1),
        (2, 1), // s = 64
        (2, 1),
        (1, 1), // s = 128
    ];
    let gfx11 = [
        (1, 1),
        (1, 1),
        (2, 1),
        (2, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (4, 1),
        (2, 1),
        (2, 1),
        (1, 1),
    ];
    for (t, want, execs) in [("gfx900", gfx9, [2, 1]), ("gfx1100", gfx11, [4, 2])] {
        let e = run("reduce", t, "reduce", "reduce");
        let rows = lds_rows(&e);
        // The initial write, the 16 of the loop, the final read.
        assert_eq!(rows.len(), 18, "{t}");
        let groups = 3;
        let mut conflict = 0;
        for (i, ((r, d), (c, m))) in rows[1..17].iter().zip(want).enumerate() {
            let per_group = match i / 2 {
                0 => execs[0],
                1 => execs[1],
                _ => 1,
            };
            let n = groups * per_group;
            assert_eq!(d.executions, n, "{t} line {} executions", r.line);
            assert_eq!(
                (d.cycles, d.min_cycles),
                (n * c, n * m),
                "{t} line {} `{}`",
                r.line,
                r.text
            );
            conflict += n * (c - m);
        }
        assert_eq!(e.profile.total.lds_conflict_cycles, conflict, "{t}");
        assert_eq!(conflict, if t == "gfx900" { 210 } else { 99 });
    }
}

/// Buffer line requests and range counts: the transposes' rows of 32
/// dwords fill whole lines; reduce reads 768 elements of a 700-element
/// buffer (68 lanes out of range); unpack24's unaligned dword loads cross
/// lines: gfx11 wave32 w reads the 97 bytes from byte 96 w, which waves
/// 1, 2 and 3 find split over two 128-byte lines where one would hold them
/// (4 waves, 7 lines, minimum 4); a gfx9 wave64 reads 193 dense bytes, 4
/// lines of 64 either way.
#[test]
fn buffer_line_requests_and_range_counts() {
    for t in TRANSPOSE_TARGETS {
        let e = run("transpose", t, "transpose32", "transpose");
        let tot = &e.profile.total;
        assert_eq!(tot.ta_lines, tot.ta_min_lines, "{t}");
        assert_eq!((tot.ta_oor_lanes, tot.ta_memviol_lanes), (0, 0));
        // 2 × 4096 dwords in lines of 64 or 128 bytes.
        assert_eq!(
            tot.ta_lines,
            2 * 4096 * 4 / u64::from(e.profile.line_bytes),
            "{t}"
        );
    }
    for t in ["gfx900", "gfx1100"] {
        let e = run("reduce", t, "reduce", "reduce");
        assert_eq!(e.profile.total.ta_oor_lanes, 768 - 700, "{t}");
        let e = run("unpack", t, "unpack24", "unpack");
        let tot = &e.profile.total;
        let want = if t == "gfx900" { (8, 8) } else { (7, 4) };
        assert_eq!((tot.ta_lines, tot.ta_min_lines), want, "{t}: {tot:?}");
        // global_* stores are counted, not sent to the TA unit.
        assert!(tot.global_executions > 0);
    }
}

/// dynlocal: 65 dwords of static LDS (260 bytes), then the `__local`
/// arguments in order, each at its `.pointee_align`: `wide` (`ulong *`,
/// 8) at 264, 512 bytes; `tile` (`uint *`, 4) at 776, 1024 bytes; 1800
/// bytes in all. Their kernarg slots hold those offsets, the 16-byte struct
/// `p` all its bytes.
///
/// The tile is written and read with a stride of 4 dwords from dword 194
/// (byte 776): a 32-lane pass touches 32 dwords on 8 banks of 32 (banks 2,
/// 6, …, 30, four dwords each: 4 cycles, minimum 1) or 16 banks of 64
/// (banks 2, 6, …, 62, two each: 2 cycles, minimum 1); the read
/// `tile[4 ((l + 1) & 63)]` wraps lane 63 to dword 194 and keeps the same
/// count per bank. gfx9 (wave64, two passes): 8 cycles, minimum 2 per
/// execution; gfx11 wave32: 2 and 1. Every other access is conflict-free:
/// `fixed` and `wide` are consecutive (the 64-bit `wide` fills 64 dwords a
/// pass: 2 cycles on 32 banks, 1 on 64), `fixed[64]` a broadcast.
#[test]
fn local_arguments_and_a_struct_reach_the_kernel() {
    let launch = std::fs::read_to_string(dir().join("dynlocal.launch.json")).unwrap();
    let (a, b, c) = (3u32, 0x100u32, 0x5_ffff_fff0u64);
    let mut p = [0u8; 16];
    p[..4].copy_from_slice(&a.to_le_bytes());
    p[4..8].copy_from_slice(&b.to_le_bytes());
    p[8..].copy_from_slice(&c.to_le_bytes());
    let fields = launch.find("{\"fields\"").unwrap();
    let end = launch[fields..].find("]}").unwrap() + fields + 2;
    let dwords: Vec<String> = p
        .chunks(4)
        .map(|d| format!("\"{:#x}\"", u32::from_le_bytes(d.try_into().unwrap())))
        .collect();
    let forms = [
        launch.clone(),
        launch.replace(&launch[fields..end], &format!("{{\"bytes\": {p:?}}}")),
        launch.replace(
            &launch[fields..end],
            &format!("{{\"dwords\": [{}]}}", dwords.join(", ")),
        ),
    ];
    for t in ["gfx900", "gfx1100"] {
        for text in &forms {
            let e = run_text("dynlocal", t, "dynlocal", text);
            let pr = &e.profile;
            let layout: Vec<(&str, u32, u32, u32)> = pr
                .lds_args
                .iter()
                .map(|x| (x.name.as_str(), x.offset, x.size, x.align))
                .collect();
            assert_eq!(
                layout,
                [("wide", 264, 512, 8), ("tile", 776, 1024, 4)],
                "{t}"
            );
            assert_eq!(
                (pr.lds_static, pr.lds_size, e.launch.lds_size),
                (260, 1800, 1800)
            );
            let mem = e.launch.memory().unwrap();
            let ka = &mem.region("kernarg").unwrap().bytes;
            let at = |name: &str| {
                let arg = e
                    .launch
                    .meta
                    .args
                    .iter()
                    .find(|x| x.name.as_deref() == Some(name));
                arg.unwrap().offset as usize
            };
            let u32_at = |o: usize| u32::from_le_bytes(ka[o..o + 4].try_into().unwrap());
            assert_eq!((u32_at(at("wide")), u32_at(at("tile"))), (264, 776), "{t}");
            assert_eq!(ka[at("p")..at("p") + 16], p, "{t}");
            let (i, o) = (words(&e, "in"), words(&e, "out"));
            assert_eq!(o.len(), 128);
            for (g, &got) in o.iter().enumerate() {
                let (l, base) = (g % 64, g - g % 64);
                let r = i[base + 63 - l];
                let w = (u64::from(r) << 32 | (63 - l) as u64).wrapping_add(c);
                let want = r
                    .wrapping_mul(a)
                    .wrapping_add(b)
                    .wrapping_add(i[base + ((l + 1) & 63)].wrapping_add(b))
                    .wrapping_add((w >> 32) as u32)
                    .wrapping_add(w as u32);
                assert_eq!(got, want, "{t} out[{g}]");
            }
            // Real LDS traffic, all in range: per group 3 writes and 4
            // reads by all 64 lanes, and fixed[64]'s write by lane 0.
            let tot = &pr.total;
            assert_eq!(
                (tot.lds_lanes, tot.lds_oor_lanes),
                (2 * (7 * 64 + 1), 0),
                "{t}"
            );
            // Banks, waves per group, cycles and minimum per execution,
            // dwords per busy bank.
            let (banks, waves, cycles, min, per_bank) = if t == "gfx900" {
                (32, 1, 8, 2, 8)
            } else {
                (64, 2, 2, 1, 2)
            };
            let conflicted: Vec<_> = lds_rows(&e)
                .into_iter()
                .filter(|(_, d)| d.conflict_cycles > 0)
                .collect();
            assert_eq!(conflicted.len(), 2, "{t}: the tile's write and read");
            for (r, d) in &conflicted {
                let execs = 2 * waves;
                assert!(r.text.contains("_b32"), "{t} {}", r.text);
                assert_eq!(d.executions, execs, "{t} {}", r.text);
                assert_eq!(
                    (d.cycles, d.min_cycles),
                    (execs * cycles, execs * min),
                    "{t}"
                );
                assert_eq!(d.worst_conflict_cycles, cycles - min, "{t}");
                // Dword 194 + 4k: banks 2, 6, …
                let busy: Vec<(usize, u32)> = d
                    .worst_banks
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, n)| n > 0)
                    .collect();
                let want: Vec<(usize, u32)> =
                    (2..banks).step_by(4).map(|k| (k, per_bank)).collect();
                assert_eq!(busy, want, "{t} {}", r.text);
            }
            assert_eq!(
                tot.lds_conflict_cycles,
                2 * 2 * waves * (cycles - min),
                "{t}"
            );
        }
    }
}

/// tile128: a `uint4` tile written at `t[2l]` and read at `t[2(63 - l)]`,
/// 16 bytes a lane (`ds_write_b128`/`ds_read_b128`, gfx11
/// `ds_store_b128`/`ds_load_b128`). Lane `l` touches dwords `8l .. 8l + 3`:
/// on 32 banks a 32-lane pass puts 8 dwords on each of banks 0-3, 8-11,
/// 16-19, 24-27 (8 cycles; the conflict-free minimum is 128 dwords / 32 =
/// 4), so a gfx9 wave64 takes 16 cycles against 8 with 16 dwords on each
/// of those banks; on 64 banks (gfx11 wave32, two waves a group) a pass
/// puts 4 on each bank `b` with `b mod 8 < 4` (4 cycles against 2). The
/// read, lanes reversed, costs the same. The output is checked word for
/// word.
#[test]
fn b128_tiles_have_the_conflicts_derived_by_hand() {
    for t in ["gfx900", "gfx1100"] {
        let e = run("tile128", t, "tile128", "tile128");
        let (i, o) = (words(&e, "in"), words(&e, "out"));
        assert_eq!(o.len(), 512);
        for (w, &got) in o.iter().enumerate() {
            let (g, c) = (w / 4, w % 4);
            let (l, base) = (g % 64, g - g % 64);
            let want = i[4 * (base + 63 - l) + c].wrapping_add(l as u32);
            assert_eq!(got, want, "{t} out word {w}");
        }
        let (banks, execs, cycles, min, per_bank, mnemonic) = if t == "gfx900" {
            (32usize, 2, 16, 8, 16, "_b128")
        } else {
            (64, 4, 4, 2, 4, "_b128")
        };
        let rows = lds_rows(&e);
        assert_eq!(rows.len(), 2, "{t}: the write and the read");
        for (r, d) in rows {
            assert!(r.text.contains(mnemonic), "{t} {}", r.text);
            assert_eq!(d.executions, execs, "{t} {}", r.text);
            assert_eq!(
                (d.cycles, d.min_cycles),
                (execs * cycles, execs * min),
                "{t} {}",
                r.text
            );
            assert_eq!(d.worst_conflict_cycles, cycles - min, "{t}");
            let busy: Vec<(usize, u32)> = d
                .worst_banks
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, n)| n > 0)
                .collect();
            let want: Vec<(usize, u32)> = (0..banks)
                .filter(|b| b % 8 < 4)
                .map(|b| (b, per_bank))
                .collect();
            assert_eq!(busy, want, "{t} {}", r.text);
        }
        let tot = &e.profile.total;
        assert_eq!((tot.lds_lanes, tot.lds_oor_lanes), (4 * 64, 0), "{t}");
    }
}

/// divide: division and remainder by run-time arguments (LLVM's
/// reciprocal expansion: `v_cvt_f32_u32`, `v_rcp_iflag_f32`, `v_mul_f32`,
/// `v_cvt_u32_f32`), an LDS address computed by division, a float compare
/// deciding a branch, and a square root as an index. Every output word is
/// checked; the square root's address, and only it, is reported as
/// depending on an approximate result. gfx900's code reads the low half
/// through SDWA (`src0_sel:WORD_0`).
#[test]
fn integer_division_and_float_branches_compute_exactly() {
    for t in ["gfx900", "gfx1100"] {
        let e = run("divide", t, "divide", "divide");
        let i = words(&e, "in");
        let (q, r, c, root) = (
            words(&e, "q"),
            words(&e, "r"),
            words(&e, "c"),
            words(&e, "root"),
        );
        for g in 0..128 {
            let (l, base) = (g % 64, g - g % 64);
            assert_eq!((q[g], r[g]), (i[g] / 7, i[g] % 7), "{t} q, r [{g}]");
            let x = (i[g] & 0xffff) as f32 * 0.5;
            let want = i[base + 63 - l].wrapping_add(if x > 1000.0 { 1 } else { 2 });
            assert_eq!(c[g], want, "{t} c[{g}]");
            let s = (l as f32).sqrt() as usize;
            assert_eq!(root[g], i[base + s], "{t} root[{g}]");
        }
        let taken = (0..128).filter(|&g| (i[g] & 0xffff) > 2000).count();
        assert!(
            taken > 0 && taken < 128,
            "{t}: both branches taken ({taken})"
        );
        assert_eq!(e.approximate.len(), 1, "{t}: {:?}", e.approximate);
        assert!(
            e.approximate[0].contains("the address depends on an approximate"),
            "{t}: {:?}",
            e.approximate
        );
        let tot = &e.profile.total;
        assert_eq!((tot.lds_lanes, tot.lds_oor_lanes), (2 * 128, 0), "{t}");
    }
}

/// 16-bit integers and binary16 as OpenCL writes them (`ushort`
/// arithmetic, `min`, shifts, `half` multiply-adds, conversions and a
/// 16-bit index), compiled: every output word as the source computes it,
/// on both targets. On gfx11 a 16-bit result keeps the register's high
/// half, never written here: the low half stays known and the 16-bit
/// stores write it.
#[test]
fn sixteen_bit_integers_and_halves_compute_as_opencl_says() {
    for t in ["gfx900", "gfx1100"] {
        let e = run("halves", t, "halves", "halves");
        let halves = |n: &str| -> Vec<u32> {
            words(&e, n)
                .iter()
                .flat_map(|w| [w & 0xffff, w >> 16])
                .collect()
        };
        let (a, b, sum, mn, h) = (
            halves("a"),
            halves("b"),
            halves("sum"),
            halves("mn"),
            halves("h"),
        );
        let (input, idx) = (words(&e, "in"), words(&e, "idx"));
        for g in 0..128 {
            let (x, y) = (a[g], b[g]);
            assert_eq!(sum[g], (x + y) & 0xffff, "{t} sum[{g}]");
            assert_eq!(mn[g], x.min(y) >> 3, "{t} mn[{g}]");
            // (x & 0xff) / 2 + (y & 7) is exact in binary16 (at most 9
            // significant bits): its bits from the exponent and fraction.
            let v = f64::from(x & 0xff) * 0.5 + f64::from(y & 7);
            let want = if v == 0.0 {
                0
            } else {
                let e = v.log2().floor() as i32;
                let frac = ((v / 2f64.powi(e) - 1.0) * 1024.0) as u32;
                ((e + 15) as u32) << 10 | frac
            };
            assert_eq!(h[g], want, "{t} h[{g}] = {v}");
            assert_eq!(
                idx[g],
                input[(g & !63) + ((x ^ y) & 63) as usize],
                "{t} idx[{g}]"
            );
        }
    }
}

/// Standard OpenCL (`get_local_id`, `barrier`) compiled with
/// `gpucosim kernel compile`: the built-ins are linked in from libclc, the
/// kernel makes no call, is proven safe, emulates with the right output on
/// both targets and passes lock-step. Compiled without them, the checker's
/// and the emulator's errors say how to compile it. A missing tool is a
/// one-line error.
#[test]
fn standard_opencl_compiles_with_its_builtins() {
    let src = gpucosim_tests::repo_root().join("tests/fixtures/kernels/opencl/transpose.cl");
    let missing = Command::new(gpucosim_bin())
        .args(["kernel", "compile", "--profile", "gfx9"])
        .arg(&src)
        .env("GPUCOSIM_CLANG", "/nonexistent/clang")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "error: GPUCOSIM_CLANG=/nonexistent/clang is not a file"
    );
    if let Err(e) = gpucosim::kernel::compile::Toolchain::locate() {
        gpucosim_testkit::skip(
            "GPUCOSIM_REQUIRE_CLANG",
            "standard_opencl_compiles_with_its_builtins",
            &e.to_string(),
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let launch = tmp.path().join("t.launch.json");
    std::fs::write(
        &launch,
        r#"{"grid": [32, 32], "args": {"in": {"size": 4096, "fill": "index"}, "out": {"size": 4096}, "n": 32}}"#,
    )
    .unwrap();
    for p in ["gfx9", "gfx11"] {
        let asm = tmp.path().join(format!("t.{p}.s"));
        let c = Command::new(gpucosim_bin())
            .args(["kernel", "compile", "--profile", p, "-o"])
            .arg(&asm)
            .arg(&src)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&c.stdout);
        assert!(
            c.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&c.stderr)
        );
        assert!(
            out.contains("(gfx") && out.contains(": transpose)"),
            "{out}"
        );
        let text = std::fs::read_to_string(&asm).unwrap();
        assert!(!text.contains("s_swappc_b64"), "{p}: a call is left");
        let check = Command::new(gpucosim_bin())
            .args(["kernel", "check"])
            .arg(&asm)
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&check.stdout);
        assert!(
            check.status.success() && t.contains("SAFE transpose"),
            "{p}: {t}"
        );
        let (prog, profile) = gpucosim::kernel::read(&asm, None).unwrap();
        let l = Launch::read(&launch, &prog, profile, None, None).unwrap();
        let e = emulate("t", &prog, profile, l, false).unwrap();
        let o = words(&e, "out");
        for y in 0..32 {
            for x in 0..32 {
                assert_eq!(o[y * 32 + x], (x * 32 + y) as u32, "{p} out[{y}][{x}]");
            }
        }
        let run = quick(Command::new(gpucosim_bin()))
            .args(["kernel", "run", "--launch"])
            .arg(&launch)
            .arg(&asm)
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success() && t.contains("PASS lds."), "{p}: {t}");
    }
    // A function neither the file nor libclc defines stays a call: refused,
    // named, and nothing written.
    let ext = tmp.path().join("ext.cl");
    std::fs::write(
        &ext,
        "uint undefined_helper(uint x);\n__kernel void k(__global uint *out) { out[get_local_id(0)] = undefined_helper(get_local_id(0)); }\n",
    )
    .unwrap();
    let out = tmp.path().join("ext.s");
    let o = Command::new(gpucosim_bin())
        .args(["kernel", "compile", "--profile", "gfx9", "-o"])
        .arg(&out)
        .arg(&ext)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("still calls `undefined_helper`") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(!out.exists(), "nothing is written for a refused kernel");
    // Compiled as the tests' own fixtures are (-nogpulib, nothing linked):
    // both errors name the built-in and the command.
    let raw = tmp.path().join("raw.s");
    let tools = gpucosim::kernel::compile::Toolchain::locate().unwrap();
    let st = Command::new(&tools.clang)
        .args([
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-cl-kernel-arg-info",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx900",
        ])
        .args(["-nogpulib", "-O2", "-S", "-o"])
        .arg(&raw)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    for args in [
        vec!["kernel", "check"],
        vec!["kernel", "profile", "--launch"],
    ] {
        let mut c = Command::new(gpucosim_bin());
        c.args(&args);
        if args.len() == 3 {
            c.arg(&launch);
        }
        let o = c.arg(&raw).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("`_Z12get_local_idj` is an OpenCL built-in")
                && err.contains("gpucosim kernel compile FILE.cl"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn every_fixture_kernel_is_proven_safe() {
    for e in std::fs::read_dir(dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "s") {
            let (prog, profile) = gpucosim::kernel::read(&p, None).unwrap();
            let r =
                gpucosim::kernel::check_program("k", &prog, profile, Default::default()).unwrap();
            assert!(r.safe(), "{}", p.display());
        }
    }
}

fn kernel_run(
    file: &str,
    kernel: &str,
    launch: &str,
    rtl: Option<&Path>,
    bundles: &Path,
) -> (Option<i32>, String) {
    let mut c = quick(Command::new(gpucosim_bin()));
    c.args(["kernel", "run"])
        .arg(dir().join(file))
        .arg("--launch")
        .arg(dir().join(format!("{launch}.launch.json")))
        .args(["--kernel", kernel])
        .arg("--bundles")
        .arg(bundles);
    if let Some(r) = rtl {
        c.arg("--rtl").arg(r);
    }
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn kernel_traffic_passes_lock_step_on_the_built_in_rtl() {
    let tmp = tempfile::tempdir().unwrap();
    for (file, kernel, launch, units) in [
        (
            "transpose.gfx900.s",
            "transpose32",
            "transpose",
            ["lds.gfx9", "ta.gfx9"],
        ),
        (
            "transpose.gfx1100w64.s",
            "transpose33",
            "transpose",
            ["lds.gfx11", "ta.gfx11"],
        ),
        (
            "histogram.gfx1100.s",
            "histogram",
            "histogram",
            ["lds.gfx11", "lds.gfx11"],
        ),
        (
            "records.gfx1100.s",
            "staging",
            "staging",
            ["ta.gfx11", "ta.gfx11"],
        ),
        (
            "dynlocal.gfx900.s",
            "dynlocal",
            "dynlocal",
            ["lds.gfx9", "lds.gfx9"],
        ),
    ] {
        let (code, text) = kernel_run(file, kernel, launch, None, tmp.path());
        assert_eq!(code, Some(0), "{file}: {text}");
        for u in units {
            assert!(
                text.contains(&format!("PASS {u}.{kernel}.1:")),
                "{file}: {text}"
            );
        }
    }
}

/// Which kernel catches each LDS and TA fixture (every one must be listed).
const CATCHES: &[(&str, &str, &str, &str)] = &[
    (
        "lds_arb_highest_wins",
        "transpose.gfx900.s",
        "transpose32",
        "transpose",
    ),
    (
        "lds_atomic_broadcast",
        "histogram.gfx1100.s",
        "histogram",
        "histogram",
    ),
    (
        "lds_b128_data_halves_swapped",
        "tile128.gfx1100.s",
        "tile128",
        "tile128",
    ),
    (
        "lds_cu_mode_64_banks",
        "transpose.gfx1100cu.s",
        "transpose32",
        "transpose",
    ),
    ("lds_range_off_by_one", "edge.gfx900.s", "lds_edge", "edge"),
    (
        "ta_coalesce_ignores_ready",
        "transpose.gfx1100w64.s",
        "transpose32",
        "transpose",
    ),
    (
        "ta_gfx11_oob0_payload_ge",
        "records.gfx1100.s",
        "records",
        "records",
    ),
    (
        "ta_gfx9_stride0_range_gt",
        "reduce.gfx900.s",
        "reduce",
        "reduce",
    ),
    (
        "ta_line_cross_part1_line",
        "unpack.gfx900.s",
        "unpack24",
        "unpack",
    ),
    (
        "ta_swizzle_index_lsb_term",
        "records.gfx1100.s",
        "staging",
        "staging",
    ),
];

#[test]
#[ignore = "heavy (RTL builds of its own): the full suite runs it, `cargo test --release --workspace -- --include-ignored`"]
fn every_lds_and_ta_broken_fixture_is_caught_by_a_kernel_run() {
    let fixtures: Vec<(String, BrokenFixture)> = BrokenFixture::all()
        .into_iter()
        .filter(|(_, f)| f.unit == "lds" || f.unit == "ta")
        .collect();
    assert!(fixtures.len() >= 9);
    for (name, f) in fixtures {
        let stem = name.trim_end_matches(".json");
        let &(_, file, kernel, launch) = CATCHES
            .iter()
            .find(|c| c.0 == stem)
            .unwrap_or_else(|| panic!("no kernel is listed to catch {stem}"));
        let tmp = tempfile::tempdir().unwrap();
        let rtl = f.apply(tmp.path());
        let bundles = tmp.path().join("bundles");
        let (code, text) = kernel_run(file, kernel, launch, Some(&rtl), &bundles);
        assert_eq!(
            code,
            Some(1),
            "{stem} ({}) not caught:\n{text}",
            f.description
        );
        let run = format!("{}.{}.{kernel}.1", f.unit, f.profile);
        assert!(
            text.contains(&format!("FAIL {run}: diverged at cycle")),
            "{stem}: {text}"
        );
        assert!(
            text.contains("reproduce: gpucosim kernel run"),
            "{stem}: {text}"
        );
        let again = quick(Command::new(gpucosim_bin()))
            .arg("replay")
            .arg(bundles.join(&run))
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&again.stdout);
        assert_eq!(again.status.code(), Some(1), "{stem}: {t}");
        assert!(t.contains("reproduced exactly as recorded"), "{stem}: {t}");
        if stem == "lds_arb_highest_wins" {
            let s = quick(Command::new(gpucosim_bin()))
                .arg("shrink")
                .arg(bundles.join(&run))
                .output()
                .unwrap();
            let t = String::from_utf8_lossy(&s.stdout);
            assert!(s.status.success(), "{t}");
            assert!(t.contains(&format!("shrunk {run}: ")), "{t}");
        }
    }
}

/// Lays out an SVG of `kernel profile` as a renderer would and checks
/// that every text and bar lies inside the canvas: a text of N characters
/// at font size P spans 0.62·N·P pixels (a sans-serif average: the
/// generator's own estimate, so this holds it to its word) from its anchor
/// (start, middle or end), from P above its baseline to P/4 below.
fn svg_fits(s: &str) {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let k = format!(" {name}=\"");
        let i = tag.find(&k)? + k.len();
        tag[i..].split('"').next()?.parse().ok()
    };
    let root = &s[..s.find('>').unwrap()];
    let (w, h) = (attr(root, "width").unwrap(), attr(root, "height").unwrap());
    let inside = |what: &str, x0: f64, x1: f64, y0: f64, y1: f64| {
        assert!(
            x0 >= 0.0 && x1 <= w && y0 >= 0.0 && y1 <= h,
            "{what} spans x {x0:.0}..{x1:.0}, y {y0:.0}..{y1:.0}, outside the {w}×{h} canvas:\n{s}"
        );
    };
    let mut texts = 0;
    for part in s.split("<text").skip(1) {
        let (tag, rest) = part.split_once('>').unwrap();
        let content = rest.split("</text>").next().unwrap();
        let chars = content
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .chars()
            .count() as f64;
        let (x, y) = (attr(tag, "x").unwrap(), attr(tag, "y").unwrap());
        let px = attr(tag, "font-size").unwrap_or(11.0);
        let len = chars * px * 0.62;
        let x0 = match () {
            _ if tag.contains("text-anchor=\"end\"") => x - len,
            _ if tag.contains("text-anchor=\"middle\"") => x - len / 2.0,
            _ => x,
        };
        inside(
            &format!("text `{content}`"),
            x0,
            x0 + len,
            y - px,
            y + px / 4.0,
        );
        texts += 1;
    }
    for part in s.split("<rect").skip(1) {
        let tag = part.split('>').next().unwrap();
        let (x, y) = (attr(tag, "x").unwrap(), attr(tag, "y").unwrap());
        let (rw, rh) = (attr(tag, "width").unwrap(), attr(tag, "height").unwrap());
        inside("a bar", x, x + rw, y, y + rh);
    }
    assert!(texts >= 4, "{s}");
}

#[test]
fn profile_cli_writes_the_table_json_svg_and_buffers() {
    let tmp = tempfile::tempdir().unwrap();
    let (json, svg, bufs) = (
        tmp.path().join("p.json"),
        tmp.path().join("p.svg"),
        tmp.path().join("b.json"),
    );
    let out = Command::new(gpucosim_bin())
        .args(["kernel", "profile"])
        .arg(dir().join("transpose.gfx900.s"))
        .arg("--launch")
        .arg(dir().join("transpose.launch.json"))
        .arg("--json")
        .arg(&json)
        .arg("--svg")
        .arg(&svg)
        .arg("--buffers")
        .arg(&bufs)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("LDS unit (32 banks)"), "{text}");
    assert!(text.contains("3968 beyond the conflict-free 256"), "{text}");
    assert!(text.contains("instructions/s"), "{text}");
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(p["total"]["lds_conflict_cycles"], 3968);
    assert_eq!(p["kernel"], "transpose32");
    assert_eq!(
        (p["lds_size"].clone(), p["lds_static"].clone()),
        (4096.into(), 4096.into())
    );
    assert_eq!(p["lds_args"], serde_json::json!([]));
    assert_eq!(p["total"]["lds_oor_lanes"], 0);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(
        s.starts_with("<svg") && s.contains("3968 conflict cycles"),
        "{s}"
    );
    svg_fits(&s);
    // A chart of few bars, whose texts are wider than its bars.
    let small = tmp.path().join("small.svg");
    let out = Command::new(gpucosim_bin())
        .args(["kernel", "profile"])
        .arg(dir().join("edge.gfx900.s"))
        .arg("--launch")
        .arg(dir().join("edge.launch.json"))
        .arg("--svg")
        .arg(&small)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = std::fs::read_to_string(&small).unwrap();
    assert!(s.matches("<rect").count() <= 2, "{s}");
    svg_fits(&s);
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bufs).unwrap()).unwrap();
    assert_eq!(b["out"][1], "0x00000040", "out[0][1] = in[1][0] = 64");
    // The `__local` arguments' layout: in the header line and the JSON.
    let out = Command::new(gpucosim_bin())
        .args(["kernel", "profile"])
        .arg(dir().join("dynlocal.gfx900.s"))
        .arg("--launch")
        .arg(dir().join("dynlocal.launch.json"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.lines().next().unwrap().ends_with(
            "instructions emulated; LDS 1800 bytes: 260 static, `wide` 512 at 264, `tile` 1024 at 776"
        ),
        "{text}"
    );
    assert!(text.contains("oor lanes"), "{text}");
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        p["lds_args"],
        serde_json::json!([
            {"name": "wide", "offset": 264, "size": 512, "align": 8},
            {"name": "tile", "offset": 776, "size": 1024, "align": 4}
        ])
    );
    assert_eq!(p["lds_size"], 1800);
}

/// Bad launches, unknown instructions and symbolic addresses are one-line
/// errors with exit 2.
#[test]
fn bad_input_is_a_one_line_error() {
    let tmp = tempfile::tempdir().unwrap();
    let edge = std::fs::read_to_string(dir().join("edge.gfx900.s")).unwrap();
    let launch = dir().join("edge.launch.json");
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    // dynlocal's launch with `p` and `tile` as given.
    let dl = |name: &str, p: &str, tile: &str, extra: &str| {
        write(
            name,
            &format!(
                r#"{{"grid": [128], "args": {{"in": {{"size": 512}}, "out": {{"size": 512}}, "p": {p}, "wide": {{"local": 512}}, "tile": {tile}}}{extra}}}"#
            ),
        )
    };
    let p = r#"{"dwords": [3, 256, 0, 5]}"#;
    let dynlocal = dir().join("dynlocal.gfx900.s");
    let cases: Vec<(PathBuf, PathBuf, &str)> = vec![
        (
            dynlocal.clone(),
            dl("d1.json", p, r#"{"size": 1024}"#, ""),
            "`args.tile` is a `__local` pointer (dynamic_shared_pointer), not a buffer: give its size in LDS bytes as {\"local\": BYTES}",
        ),
        (
            dynlocal.clone(),
            dl(
                "d2.json",
                r#"{"fields": [{"offset": 0, "size": 4, "value": 3}, {"offset": 8, "size": 8, "value": 5}]}"#,
                r#"{"local": 1024}"#,
                "",
            ),
            "`args.p.fields` leave bytes 4 to 7 of the 16-byte argument unset",
        ),
        (
            dynlocal.clone(),
            dl("d3.json", "7", r#"{"local": 1024}"#, ""),
            "`args.p` is a 16-byte struct: give {\"bytes\": […]}, {\"dwords\": […]} or {\"fields\"",
        ),
        (
            dynlocal.clone(),
            dl("d4.json", p, r#"{"local": 1024}"#, r#", "lds_size": 1796"#),
            "`lds_size` 1796 is less than the 1800 bytes the kernel's local memory and `__local` arguments take (260 static, `wide` 512 at 264, `tile` 1024 at 776)",
        ),
        (
            write(
                "oor.s",
                &edge.replace(
                    "\tds_write_b32 v0, v3\n",
                    "\tv_add_u32_e32 v0, 0x400, v0\n\tds_write_b32 v0, v3\n",
                ),
            ),
            launch.clone(),
            "every LDS access of the launch is out of range (256 lanes of 4 `ds_*` executions, none within the 256-byte allocation)",
        ),
        (
            write(
                "unknown.s",
                &edge.replace(
                    "\tv_lshlrev_b32_e32 v0, 2, v0\n",
                    "\tv_frob_b32 v0, 2, v0\n",
                ),
            ),
            launch.clone(),
            "`v_frob_b32 v0, 2, v0`: v_frob_b32 is not emulated",
        ),
        (
            write(
                "unwritten.s",
                &edge.replace(
                    "\tds_write_b32 v0, v3\n",
                    "\tv_mov_b32_e32 v0, v200\n\tds_write_b32 v0, v3\n",
                ),
            ),
            launch.clone(),
            "`ds_write_b32 v0, v3`: the address (v0) of lane 0 is symbolic",
        ),
        (
            write(
                "narrow.s",
                &edge.replace(
                    "\tglobal_load_dword v3, v[3:4], off\n",
                    "\tglobal_load_dwordx2 v3, v[3:4], off\n",
                ),
            ),
            launch.clone(),
            "v3 is 1 VGPR(s); the access needs 2",
        ),
        (
            write(
                "v999.s",
                &edge.replace("\tds_write_b32 v0, v3\n", "\tds_write_b32 v0, v999\n"),
            ),
            launch.clone(),
            "operand `v999` is not a register or a constant",
        ),
        (
            dir().join("edge.gfx900.s"),
            write(
                "l1.json",
                r#"{"grid": [128], "args": {"in": {"size": 512}}}"#,
            ),
            "`args.out` is missing",
        ),
        (
            dir().join("edge.gfx900.s"),
            write(
                "huge.json",
                r#"{"grid": [100000, 100000], "args": {"in": {"size": 512}, "out": {"size": 512}}}"#,
            ),
            "the launch has 156300000 work-groups (grid 100000 x 100000 x 1, work-groups of 64 x 1 x 1): more than the 65536 one emulation runs; sample some with \"run\": {\"sample\": N}",
        ),
        (
            dir().join("edge.gfx900.s"),
            write(
                "l2.json",
                r#"{"grid": [128], "args": {"in": {"size": 512}, "out": {"size": 4}}}"#,
            ),
            "are outside `out`",
        ),
        (
            dir().join("edge.gfx900.s"),
            write("l3.json", r#"{"grid": [128], "wave": 3}"#),
            "`wave` is not a launch field",
        ),
        (
            dir().join("edge.gfx900.s"),
            write(
                "l4.json",
                r#"{"grid": [128], "workgroup": [32], "args": {"in": {"size": 512}, "out": {"size": 512}}}"#,
            ),
            "differs from the kernel's required work-group size",
        ),
    ];
    for (file, launch, want) in cases {
        let out = Command::new(gpucosim_bin())
            .args(["kernel", "profile"])
            .arg(&file)
            .arg("--launch")
            .arg(&launch)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{want}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(want), "want `{want}` in: {err}");
    }
}

/// The edge kernel with its LDS address moved 1 KiB up, past the 256-byte
/// allocation for every lane: `kernel profile` and `kernel run --launch`
/// refuse it (exit 2, one line) unless the launch allows it; then every
/// lane counts out of range and reads 0.
#[test]
fn a_launch_with_every_lds_access_out_of_range_needs_the_opt_in() {
    let tmp = tempfile::tempdir().unwrap();
    let edge = std::fs::read_to_string(dir().join("edge.gfx900.s")).unwrap();
    let file = tmp.path().join("oor.s");
    std::fs::write(
        &file,
        edge.replace(
            "\tds_write_b32 v0, v3\n",
            "\tv_add_u32_e32 v0, 0x400, v0\n\tds_write_b32 v0, v3\n",
        ),
    )
    .unwrap();
    let launch = std::fs::read_to_string(dir().join("edge.launch.json")).unwrap();
    let allowed = tmp.path().join("allowed.json");
    std::fs::write(
        &allowed,
        launch.replacen('{', "{\"allow_lds_out_of_range\": true, ", 1),
    )
    .unwrap();
    let cli = |cmd: &str, l: &Path| {
        let out = quick(Command::new(gpucosim_bin()))
            .args(["kernel", cmd])
            .arg(&file)
            .arg("--launch")
            .arg(l)
            .arg(if cmd == "run" { "--bundles" } else { "--json" })
            .arg(tmp.path().join(if cmd == "run" { "b" } else { "p.json" }))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        (out.status.code(), err)
    };
    for cmd in ["profile", "run"] {
        let (code, err) = cli(cmd, &dir().join("edge.launch.json"));
        assert_eq!(code, Some(2), "{cmd}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{cmd}: {err}");
        assert!(
            err.contains("every LDS access of the launch is out of range")
                && err.contains("\"allow_lds_out_of_range\": true"),
            "{cmd}: {err}"
        );
    }
    let (code, err) = cli("profile", &allowed);
    assert_eq!(code, Some(0), "{err}");
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("p.json")).unwrap()).unwrap();
    assert_eq!(p["total"]["lds_lanes"], 256);
    assert_eq!(p["total"]["lds_oor_lanes"], 256);
    for r in p["instructions"].as_array().unwrap() {
        if r["unit"] == "lds" {
            assert_eq!(r["lds"]["oor_lanes"], r["lds"]["lanes"], "{r}");
        }
    }
    // The same through the library: out = 0 + 0.
    let (prog, profile) = gpucosim::kernel::read(&file, None).unwrap();
    let text = std::fs::read_to_string(&allowed).unwrap();
    let l = Launch::parse(&text, &prog, profile, None, None).unwrap();
    let e = emulate("oor", &prog, profile, l, false).unwrap();
    assert!(words(&e, "out").iter().all(|&w| w == 0));
}

/// `regress --launch FILE=LAUNCH`: each seed two jobs, the launch's LDS
/// and TA traffic, named `UNIT.PROFILE.KERNEL.SEED`; a broken RTL fails
/// them with bundles that replay; a cycle budget too short for the
/// kernel's transactions is an error, not a pass.
#[test]
fn regress_runs_launches_as_jobs() {
    let arg = format!(
        "{}={}",
        dir().join("transpose.gfx900.s").display(),
        dir().join("transpose.launch.json").display()
    );
    let regress = |extra: &[&str], cwd: &Path| {
        quick(Command::new(gpucosim_bin()))
            .current_dir(cwd)
            .args([
                "regress",
                "--unit",
                "lds",
                "--profile",
                "gfx9",
                "--seeds",
                "1..2",
            ])
            .args(["--launch", &arg])
            .args(extra)
            .output()
            .unwrap()
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = regress(&["--list"], tmp.path());
    let names = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        names.lines().collect::<Vec<_>>(),
        [
            "lds.gfx9.1",
            "lds.gfx9.2",
            "lds.gfx9.transpose32.1",
            "lds.gfx9.transpose32.2",
            "ta.gfx9.transpose32.1",
            "ta.gfx9.transpose32.2"
        ]
    );
    // The broken arbiter: the kernel's LDS jobs fail, its TA jobs pass.
    let (_, f) = BrokenFixture::all()
        .into_iter()
        .find(|(n, _)| n.starts_with("lds_arb_highest_wins"))
        .unwrap();
    let rtl = f.apply(tmp.path());
    let out = regress(
        &[
            "--rtl",
            rtl.to_str().unwrap(),
            "--cycles",
            "20000",
            "--junit",
            "j.xml",
        ],
        tmp.path(),
    );
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let junit = std::fs::read_to_string(tmp.path().join("j.xml")).unwrap();
    for s in [1, 2] {
        assert!(
            text.contains(&format!("FAIL lds.gfx9.transpose32.{s}")),
            "{text}"
        );
        assert!(
            text.contains(&format!("PASS ta.gfx9.transpose32.{s}")),
            "{text}"
        );
        assert!(
            junit.contains(&format!("name=\"lds.gfx9.transpose32.{s}\"")),
            "{junit}"
        );
    }
    let bundle = tmp.path().join("gpucosim-failures/lds.gfx9.transpose32.1");
    let again = quick(Command::new(gpucosim_bin()))
        .arg("replay")
        .arg(&bundle)
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&again.stdout);
    assert!(t.contains("reproduced exactly as recorded"), "{t}");
    // Too few cycles for the kernel's 128 transactions.
    let out = regress(&["--cycles", "300"], tmp.path());
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("the cycle budget of 300 cycles ended after"),
        "{text}"
    );
}

/// The cycles of a passing `kernel run` line: `PASS NAME: N transactions,
/// C cycles, …`.
fn pass_cycles(text: &str, name: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("PASS {name}: ")))
        .unwrap_or_else(|| panic!("no PASS {name}:\n{text}"));
    line.split(", ")
        .find_map(|f| f.strip_suffix(" cycles")?.parse().ok())
        .unwrap_or_else(|| panic!("no cycles in {line}"))
}

/// `kernel run --launch` and `regress --launch` share one runner and one
/// budget rule: a budget that ends after the last transaction was sent
/// but before it had finished is not a pass in either (it used to pass
/// silently, the last transaction's cycles unchecked); the same budget
/// plus one cycle passes in both, and a regression's kernel job
/// reproduces as the `kernel run` with its `--cycles`.
#[test]
fn a_budget_that_ends_before_the_last_transaction_finished_is_no_pass() {
    let (file, launch) = (
        dir().join("transpose.gfx900.s"),
        dir().join("transpose.launch.json"),
    );
    let tmp = tempfile::tempdir().unwrap();
    let kernel_run = |cycles: Option<u64>| {
        let mut c = quick(Command::new(gpucosim_bin()));
        c.args(["kernel", "run"])
            .arg(&file)
            .arg("--launch")
            .arg(&launch)
            .arg("--bundles")
            .arg(tmp.path().join("b"));
        if let Some(n) = cycles {
            c.args(["--cycles", &n.to_string()]);
        }
        let out = c.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    // The default budget (twice what the traffic needs) runs it through.
    let (code, text) = kernel_run(None);
    assert_eq!(code, Some(0), "{text}");
    let name = "lds.gfx9.transpose32.1";
    let full = pass_cycles(&text, name);
    // One cycle short of the replay's end: every transaction was sent.
    let (code, text) = kernel_run(Some(full - 1));
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "INCOMPLETE {name}: the cycle budget ended before the last of 128 transactions had finished"
        )),
        "{text}"
    );
    let (code, text) = kernel_run(Some(full));
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(pass_cycles(&text, name), full);
    // The same budgets as a regression's jobs.
    let regress = |cycles: u64| {
        let out = quick(Command::new(gpucosim_bin()))
            .current_dir(tmp.path())
            .args([
                "regress",
                "--unit",
                "lds",
                "--profile",
                "gfx9",
                "--seeds",
                "1",
            ])
            .arg("--launch")
            .arg(format!("{}={}", file.display(), launch.display()))
            .args(["--cycles", &cycles.to_string(), "--no-stress", "--results"])
            .arg(format!("r{cycles}.json"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, text) = regress(full - 1);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "ERROR lds.gfx9.transpose32.1: the cycle budget of {} cycles ended before the last of the kernel's 128 transactions had finished: raise --cycles",
            full - 1
        )),
        "{text}"
    );
    let (code, text) = regress(full);
    assert_eq!(code, Some(0), "{text}");
    let r: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join(format!("r{full}.json"))).unwrap(),
    )
    .unwrap();
    let job = r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["status"] == "passed" && j["job"]["kernel"]["unit"] == "lds")
        .unwrap_or_else(|| panic!("no passing lds kernel job: {r}"));
    assert_eq!(job["cycles"], full, "{job}");
    let file = file.canonicalize().unwrap();
    let launch = launch.canonicalize().unwrap();
    assert_eq!(
        job["reproduce"],
        format!(
            "gpucosim kernel run {} --launch {} --profile gfx9 --seed 1 --kernel transpose32 --cycles {full}",
            file.display(),
            launch.display()
        ),
        "{job}"
    );
}
