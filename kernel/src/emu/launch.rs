//! A launch: the kernel's descriptor (the `.amdhsa_*` directives of its
//! `.amdhsa_kernel` block) and metadata (its arguments), and the launch
//! description the user writes (grid, work-group size, arguments, LDS size,
//! which work-groups run), made into the memory the kernel starts with.
//! Format: docs/kernels.md "The launch".

use super::memory::Memory;
use crate::asm;
use gpucosim_model::Profile;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// What the kernel descriptor asks the dispatcher to set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// `.amdhsa_group_segment_fixed_size`: LDS bytes.
    pub lds_bytes: u32,
    /// `.amdhsa_private_segment_fixed_size`: scratch bytes per work-item.
    pub private_bytes: u32,
    /// User SGPRs in order: (what, SGPR count).
    pub user_sgprs: Vec<(&'static str, u16)>,
    /// First system SGPR (`.amdhsa_user_sgpr_count`, else the user SGPRs'
    /// count).
    pub system_first: u16,
    /// `.amdhsa_system_sgpr_workgroup_id_x/y/z`.
    pub wgid: [bool; 3],
    /// `.amdhsa_system_sgpr_workgroup_info`.
    pub wg_info: bool,
    /// The private segment wave offset SGPR
    /// (`.amdhsa_system_sgpr_private_segment_wavefront_offset`, gfx11
    /// `.amdhsa_enable_private_segment`).
    pub private_offset: bool,
    /// `.amdhsa_system_vgpr_workitem_id`: IDs set up beyond x (0, 1, 2).
    pub workitem_id: u8,
    /// Wave32 (`.amdhsa_wavefront_size32`).
    pub wave32: bool,
    /// gfx11 WGP mode (`.amdhsa_workgroup_processor_mode`); else CU mode.
    pub wgp: bool,
    /// `.amdhsa_float_denorm_mode_32` (0: flush denormal inputs and
    /// outputs, the hardware's default; 3: keep them).
    pub f32_denorm: u32,
    /// `.amdhsa_float_round_mode_32` (0: round to nearest even).
    pub f32_round: u32,
    /// `.amdhsa_float_denorm_mode_16_64` (default 3: keep denormals).
    pub f64_denorm: u32,
    /// `.amdhsa_float_round_mode_16_64`.
    pub f64_round: u32,
}

impl Descriptor {
    /// Reads the directives of `kernel`'s descriptor.
    pub fn of(prog: &asm::Program, kernel: &str, profile: Profile) -> Result<Descriptor, String> {
        let d = prog.descriptors.get(kernel).ok_or_else(|| {
            format!(
                "kernel `{kernel}` has no `.amdhsa_kernel` descriptor in the file: the emulator needs the assembler output (clang -S), not a disassembly"
            )
        })?;
        let get = |k: &str| -> Result<Option<u32>, String> {
            match d.iter().find(|(n, _)| n == k) {
                None => Ok(None),
                Some((_, v)) => {
                    let v = v.trim();
                    let n = match v.strip_prefix("0x") {
                        Some(h) => u32::from_str_radix(h, 16),
                        None => v.parse(),
                    };
                    n.map(Some)
                        .map_err(|_| format!("`.amdhsa_{k} {v}` is not a number"))
                }
            }
        };
        let on = |k: &str, default: bool| -> Result<bool, String> {
            Ok(get(k)?.map_or(default, |v| v != 0))
        };
        // A two-bit mode field (0 when absent, the hardware's default).
        let mode_or = |k: &str, default: u32| -> Result<u32, String> {
            match get(k)?.unwrap_or(default) {
                v @ 0..=3 => Ok(v),
                v => Err(format!("`.amdhsa_{k} {v}` is not a mode (0 to 3)")),
            }
        };
        let mode2 = |k: &str| mode_or(k, 0);
        if get("user_sgpr_kernarg_preload_length")?.unwrap_or(0) > 0 {
            return Err("preloaded kernel arguments are not emulated".into());
        }
        let mut user = Vec::new();
        for (k, what, n) in [
            (
                "user_sgpr_private_segment_buffer",
                "private segment buffer",
                4,
            ),
            ("user_sgpr_dispatch_ptr", "dispatch packet pointer", 2),
            ("user_sgpr_queue_ptr", "queue pointer", 2),
            (
                "user_sgpr_kernarg_segment_ptr",
                "kernel argument pointer",
                2,
            ),
            ("user_sgpr_dispatch_id", "dispatch id", 2),
            ("user_sgpr_flat_scratch_init", "flat scratch init", 2),
            ("user_sgpr_private_segment_size", "private segment size", 1),
        ] {
            if on(k, false)? {
                user.push((what, n));
            }
        }
        let used: u16 = user.iter().map(|u| u.1).sum();
        let system_first = match get("user_sgpr_count")? {
            Some(c) if (c as u16) < used => {
                return Err(format!(
                    "`.amdhsa_user_sgpr_count {c}` is fewer than the {used} user SGPRs enabled"
                ))
            }
            Some(c) => c as u16,
            None => used,
        };
        let gfx9 = profile.gfx() == 9;
        Ok(Descriptor {
            lds_bytes: get("group_segment_fixed_size")?.unwrap_or(0),
            private_bytes: get("private_segment_fixed_size")?.unwrap_or(0),
            user_sgprs: user,
            system_first,
            wgid: [
                on("system_sgpr_workgroup_id_x", true)?,
                on("system_sgpr_workgroup_id_y", false)?,
                on("system_sgpr_workgroup_id_z", false)?,
            ],
            wg_info: on("system_sgpr_workgroup_info", false)?,
            private_offset: on("system_sgpr_private_segment_wavefront_offset", false)?
                || on("enable_private_segment", false)?,
            workitem_id: get("system_vgpr_workitem_id")?.unwrap_or(0).min(2) as u8,
            wave32: !gfx9 && on("wavefront_size32", true)?,
            wgp: !gfx9 && on("workgroup_processor_mode", true)?,
            f32_denorm: mode2("float_denorm_mode_32")?,
            f32_round: mode2("float_round_mode_32")?,
            f64_denorm: mode_or("float_denorm_mode_16_64", 3)?,
            f64_round: mode2("float_round_mode_16_64")?,
        })
    }
}

/// The most work-groups one emulation runs (`"run": "all"` of a larger
/// grid is refused, with the numbers, pointing to `{"sample": N}`): their
/// ids are held in memory and each one takes its time.
pub const MAX_GROUPS: u64 = 65_536;

/// A kernel argument as the metadata describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgInfo {
    /// `.name` (with `-cl-kernel-arg-info`), else none.
    pub name: Option<String>,
    /// Byte offset in the kernel argument segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `.value_kind` (`global_buffer`, `by_value`, `hidden_block_count_x`, …).
    pub kind: String,
    /// `.pointee_align` (`__local` pointers): the alignment of what it
    /// points to, bytes.
    pub pointee_align: Option<u32>,
    /// `.address_space` (pointers: `global`, `constant`, `local`, …).
    pub address_space: Option<String>,
}

/// The hidden arguments the emulator knows (code object v5's): it sets the
/// grid's (block counts, group sizes, remainders, dimensions, dynamic LDS
/// size, queue pointer) and leaves the others 0.
pub const HIDDEN_KINDS: &[&str] = &[
    "hidden_global_offset_x",
    "hidden_global_offset_y",
    "hidden_global_offset_z",
    "hidden_none",
    "hidden_printf_buffer",
    "hidden_hostcall_buffer",
    "hidden_default_queue",
    "hidden_completion_action",
    "hidden_multigrid_sync_arg",
    "hidden_block_count_x",
    "hidden_block_count_y",
    "hidden_block_count_z",
    "hidden_group_size_x",
    "hidden_group_size_y",
    "hidden_group_size_z",
    "hidden_remainder_x",
    "hidden_remainder_y",
    "hidden_remainder_z",
    "hidden_grid_dims",
    "hidden_heap_v1",
    "hidden_dynamic_lds_size",
    "hidden_private_base",
    "hidden_shared_base",
    "hidden_queue_ptr",
];

/// What the launch gives for an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgClass {
    /// A global (or constant) buffer: `{"size", "fill", "data"}`.
    Buffer,
    /// A `__local` pointer (`dynamic_shared_pointer`): `{"local": BYTES}`,
    /// allocated in the LDS after the static group segment.
    Local,
    /// A value (`by_value`): a number, or `bytes`, `dwords`, `fields`.
    Value,
    /// A hidden argument the dispatcher sets.
    Hidden,
}

impl ArgInfo {
    /// A hidden argument (set by the dispatcher, not the user).
    pub fn hidden(&self) -> bool {
        self.kind.starts_with("hidden_")
    }

    /// A global (or constant) buffer the user gives the contents of.
    pub fn buffer(&self) -> bool {
        self.kind == "global_buffer"
    }

    /// What the launch gives for this argument, `label` naming it in
    /// errors: a kind the emulator cannot represent (images, samplers,
    /// pipes, queues, an unknown hidden argument) or an address space that
    /// contradicts it is an error, never a silent 0.
    pub fn class(&self, label: &str) -> Result<ArgClass, String> {
        let space = self.address_space.as_deref();
        let bad_space = |want: &str| {
            format!(
                "argument `{label}` is a `{}` in address space `{}`: the metadata is inconsistent (a `{}` must be in {want})",
                self.kind,
                space.unwrap_or(""),
                self.kind
            )
        };
        match self.kind.as_str() {
            "global_buffer" => match space {
                None | Some("global" | "constant" | "generic") => Ok(ArgClass::Buffer),
                Some(_) => Err(bad_space("`global`, `constant` or `generic`")),
            },
            "dynamic_shared_pointer" => match space {
                None | Some("local") => Ok(ArgClass::Local),
                Some(_) => Err(bad_space("`local`")),
            },
            "by_value" => Ok(ArgClass::Value),
            k if HIDDEN_KINDS.contains(&k) => Ok(ArgClass::Hidden),
            k if k.starts_with("hidden_") => Err(format!(
                "hidden argument `{label}` (offset {}) has `.value_kind: {k}`, which the emulator does not know how to set",
                self.offset
            )),
            "" => Err(format!("argument `{label}` has no `.value_kind` in the metadata")),
            k => Err(format!(
                "argument `{label}` has `.value_kind: {k}`: the emulator cannot represent it (only global buffers, `__local` pointers and by-value arguments; no images, samplers, pipes or queues)"
            )),
        }
    }
}

/// A `__local` pointer argument's allocation in the LDS.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LdsArg {
    /// The argument.
    pub name: String,
    /// Its byte offset in the LDS allocation (what its kernarg slot holds).
    pub offset: u32,
    /// Its size in bytes, as the launch gives it.
    pub size: u32,
    /// The alignment its offset was rounded up to (`.pointee_align`, else
    /// 4).
    pub align: u32,
}

/// The alignment of a `__local` argument whose metadata gives no
/// `.pointee_align`: a dword, what the LDS's dword banks and the DWORD
/// alignment mode need, and what LLVM gives `uint*` (it always writes
/// `.pointee_align` for `__local` pointers, so this is for hand-written
/// metadata).
pub const DEFAULT_LOCAL_ALIGN: u32 = 4;

/// What the metadata says about one kernel.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    /// Its arguments, explicit then hidden, in order.
    pub args: Vec<ArgInfo>,
    /// `.reqd_workgroup_size`.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// `.kernarg_segment_size`.
    pub kernarg_size: u32,
}

/// Reads `kernel`'s entry of the metadata YAML (the subset LLVM writes:
/// a `amdhsa.kernels` list of maps, `.args` a list of maps).
pub fn metadata(prog: &asm::Program, kernel: &str) -> Result<Metadata, String> {
    let text = prog.metadata.as_deref().ok_or_else(|| {
        format!("the file has no `.amdgpu_metadata`: the arguments of `{kernel}` are unknown")
    })?;
    // The kernels' entries: lines from one `  - ` at the kernel list's
    // indentation to the next.
    let mut entries: Vec<Vec<&str>> = Vec::new();
    let mut in_kernels = false;
    for line in text.lines() {
        if line.starts_with("amdhsa.kernels:") {
            in_kernels = true;
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('-') {
            in_kernels = false;
        }
        if !in_kernels {
            continue;
        }
        if line.starts_with("  - ") || line.starts_with("- ") {
            entries.push(Vec::new());
        }
        if let Some(e) = entries.last_mut() {
            e.push(line);
        }
    }
    let kv = |l: &str| -> Option<(String, String)> {
        let t = l.trim().trim_start_matches("- ").trim();
        let (k, v) = t.split_once(':')?;
        // `!str n`: YAML 1.1 would read a bare `n` as false.
        let v = v.trim();
        let v = v.strip_prefix("!str ").unwrap_or(v);
        Some((
            k.trim().to_string(),
            v.trim().trim_matches('\'').to_string(),
        ))
    };
    for e in entries {
        let indent = |l: &str| l.len() - l.trim_start().len();
        let top = indent(e[0]) + 2;
        let mut md = Metadata::default();
        let mut name = None;
        let mut section = String::new();
        let mut reqd = Vec::new();
        for &l in &e {
            let ind = indent(l);
            let dash = l.trim_start().starts_with("- ");
            let key_ind = if dash { ind + 2 } else { ind };
            if key_ind == top || l == e[0] {
                if let Some((k, v)) = kv(l) {
                    match k.as_str() {
                        ".name" => name = Some(v.clone()),
                        ".kernarg_segment_size" => md.kernarg_size = v.parse().unwrap_or(0),
                        _ => {}
                    }
                    section = k;
                }
                continue;
            }
            if section == ".args" {
                if dash {
                    md.args.push(ArgInfo::default());
                }
                if let (Some(a), Some((k, v))) = (md.args.last_mut(), kv(l)) {
                    match k.as_str() {
                        ".name" => a.name = Some(v),
                        ".offset" => {
                            a.offset = v.parse().map_err(|_| format!("argument offset `{v}`"))?
                        }
                        ".size" => {
                            a.size = v.parse().map_err(|_| format!("argument size `{v}`"))?
                        }
                        ".value_kind" => a.kind = v,
                        ".pointee_align" => {
                            a.pointee_align = Some(
                                v.parse()
                                    .map_err(|_| format!("argument pointee alignment `{v}`"))?,
                            )
                        }
                        ".address_space" => a.address_space = Some(v),
                        _ => {}
                    }
                }
            } else if section == ".reqd_workgroup_size" && dash {
                reqd.push(
                    l.trim()
                        .trim_start_matches("- ")
                        .trim()
                        .parse::<u32>()
                        .unwrap_or(0),
                );
            }
        }
        if name.as_deref() == Some(kernel) {
            if reqd.len() == 3 {
                md.reqd_workgroup_size = Some([reqd[0], reqd[1], reqd[2]]);
            }
            return Ok(md);
        }
    }
    Err(format!("the metadata has no entry for kernel `{kernel}`"))
}

/// The value of an explicit argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// A scalar (a by-value argument of at most 8 bytes given as a number).
    Scalar(u64),
    /// A by-value argument's bytes, exactly its size (`bytes`, `dwords`,
    /// `fields`).
    Bytes(Vec<u8>),
    /// A buffer: its contents.
    Buffer(Vec<u8>),
    /// A `__local` pointer: its allocation in the LDS.
    Local {
        /// Byte offset in the LDS allocation.
        offset: u32,
        /// Bytes.
        size: u32,
    },
}

/// A launch, resolved against the kernel.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The kernel's name.
    pub kernel: String,
    /// Its descriptor.
    pub desc: Descriptor,
    /// Its metadata.
    pub meta: Metadata,
    /// Work-items per dimension.
    pub grid: [u32; 3],
    /// Work-group size.
    pub wg: [u32; 3],
    /// Explicit arguments' values, in the metadata's order of explicit
    /// arguments (with their names: the metadata's, else `argN`).
    pub args: Vec<(String, ArgValue)>,
    /// The allocation the LDS unit is given (bytes).
    pub lds_size: u32,
    /// The `__local` pointer arguments' allocations, in argument order
    /// (after the static group segment).
    pub lds_args: Vec<LdsArg>,
    /// Let every LDS access fall out of the allocation
    /// (`"allow_lds_out_of_range": true`); else that is an error.
    pub allow_lds_out_of_range: bool,
    /// `SH_MEM_CONFIG.alignment_mode` (0..3, `ALIGN_MODES`).
    pub align_mode: u32,
    /// The work-groups to run, in order.
    pub run: Vec<[u32; 3]>,
    /// The seed of random fills and samples.
    pub seed: u64,
    /// The file's data objects (read-only lookup tables, …), each mapped
    /// at [`Launch::data_addresses`].
    pub data: Vec<asm::Data>,
}

/// Base address of the first buffer; each buffer starts at a multiple of
/// `BUFFER_SPACING` past it, with unmapped space between them.
pub const BUFFER_BASE: u64 = 0x1_0000_0000;
/// Spacing unit of buffers.
pub const BUFFER_SPACING: u64 = 1 << 24;
/// The kernel argument segment.
pub const KERNARG_BASE: u64 = 0x0800_0000;
/// The dispatch packet.
pub const DISPATCH_BASE: u64 = 0x0700_0000;
/// The queue.
pub const QUEUE_BASE: u64 = 0x0600_0000;
/// The file's data objects.
pub const DATA_BASE: u64 = 0x0500_0000;
/// The notional address of the code: `s_getpc_b64` of instruction `i`
/// gives `CODE_BASE + 8 * (i + 1)`.
pub const CODE_BASE: u64 = 0x0400_0000;

fn dims(v: &Value, what: &str) -> Result<[u32; 3], String> {
    let a = v
        .as_array()
        .filter(|a| (1..=3).contains(&a.len()))
        .ok_or_else(|| format!("`{what}` must be a list of 1 to 3 sizes"))?;
    let mut d = [1u32; 3];
    for (i, x) in a.iter().enumerate() {
        d[i] = x
            .as_u64()
            .filter(|&n| (1..=u64::from(u32::MAX)).contains(&n))
            .ok_or_else(|| format!("`{what}[{i}]` must be a positive integer"))?
            as u32;
    }
    Ok(d)
}

/// A count, size, offset or word: a whole number, or a `0x` string.
fn uint(v: &Value, what: &str) -> Result<u64, String> {
    if v.as_i64().is_some_and(|n| n < 0) {
        return Err(format!("`{what}` is never negative"));
    }
    int(v, what)
}

/// A value of a signed or unsigned type: as [`uint`], and a negative
/// number as its two's complement (an `int` argument of -5).
fn int(v: &Value, what: &str) -> Result<u64, String> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    if let Some(n) = v.as_i64() {
        return Ok(n as u64);
    }
    if let Some(s) = v.as_str() {
        if let Some(h) = s.strip_prefix("0x") {
            return u64::from_str_radix(&h.replace('_', ""), 16)
                .map_err(|_| format!("`{what}`: `{s}` is not a number"));
        }
    }
    Err(format!("`{what}` must be an integer"))
}

fn buffer(v: &Value, what: &str, rng: &mut ChaCha8Rng) -> Result<Vec<u8>, String> {
    let o = v.as_object().ok_or_else(|| {
        format!("`{what}` is a buffer: give {{\"size\": BYTES, \"fill\": …, \"data\": […]}}")
    })?;
    for k in o.keys() {
        if !matches!(k.as_str(), "size" | "fill" | "data") {
            return Err(format!(
                "`{what}.{k}` is not a buffer field (size, fill, data)"
            ));
        }
    }
    let data: Vec<u32> = match o.get("data") {
        None => Vec::new(),
        Some(d) => d
            .as_array()
            .ok_or_else(|| format!("`{what}.data` must be a list of dwords"))?
            .iter()
            .enumerate()
            .map(|(i, x)| {
                uint(x, &format!("{what}.data[{i}]")).and_then(|n| {
                    u32::try_from(n).map_err(|_| format!("`{what}.data[{i}]` is not a dword"))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let size = match o.get("size") {
        Some(s) => uint(s, &format!("{what}.size"))?,
        None if !data.is_empty() => data.len() as u64 * 4,
        None => return Err(format!("`{what}` needs a `size` in bytes (or `data`)")),
    };
    if size > 1 << 30 {
        return Err(format!("`{what}.size` {size} is over 1 GiB"));
    }
    if (data.len() as u64) * 4 > size {
        return Err(format!(
            "`{what}.data` has {} dwords, more than its size of {size} bytes",
            data.len()
        ));
    }
    let dwords = (size as usize).div_ceil(4);
    let mut words: Vec<u32> = match o.get("fill") {
        None => vec![0; dwords],
        Some(Value::String(s)) if !s.starts_with("0x") => match s.as_str() {
            "zero" => vec![0; dwords],
            "index" => (0..dwords as u32).collect(),
            "random" => (0..dwords).map(|_| rng.gen()).collect(),
            other => {
                return Err(format!(
                    "`{what}.fill`: `{other}` is not a fill (zero, index, random, or a dword)"
                ))
            }
        },
        Some(x) => {
            let n = uint(x, &format!("{what}.fill"))?;
            let n = u32::try_from(n).map_err(|_| format!("`{what}.fill` is not a dword"))?;
            vec![n; dwords]
        }
    };
    words[..data.len()].copy_from_slice(&data);
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.truncate(size as usize);
    Ok(bytes)
}

/// Whether `n` (as given: unsigned, or negative as two's complement) fits
/// in `size` bytes.
fn fits(n: u64, size: u32) -> bool {
    if size >= 8 {
        return true;
    }
    if size == 0 {
        return n == 0;
    }
    n >> (8 * size) == 0 || (n as i64) >> (8 * size - 1) == -1
}

/// Byte ranges as `bytes 8 to 11, 14`.
fn byte_ranges(bytes: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let mut j = i;
        while j + 1 < bytes.len() && bytes[j + 1] == bytes[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            format!("{}", bytes[i])
        } else {
            format!("{} to {}", bytes[i], bytes[j])
        });
        i = j + 1;
    }
    let s = if bytes.len() == 1 { "byte" } else { "bytes" };
    format!("{s} {}", parts.join(", "))
}

/// A by-value argument of `size` bytes: a number (at most 8 bytes), or
/// `{"bytes": […]}`, `{"dwords": […]}`, `{"fields": [{"offset", "size",
/// "value"}, …]}` giving every byte.
fn by_value(v: &Value, what: &str, size: u32) -> Result<ArgValue, String> {
    let forms = "give {\"bytes\": […]}, {\"dwords\": […]} or {\"fields\": [{\"offset\", \"size\", \"value\"}, …]}";
    let o = match v {
        Value::Object(o) => o,
        _ if size > 8 => return Err(format!("`{what}` is a {size}-byte struct: {forms}")),
        _ => {
            let n = int(v, what)?;
            if !fits(n, size) {
                return Err(format!("`{what}` {n} does not fit in {size} bytes"));
            }
            return Ok(ArgValue::Scalar(n));
        }
    };
    let mut keys = o.keys();
    let (Some(k), None) = (keys.next(), keys.next()) else {
        return Err(format!(
            "`{what}` is a {size}-byte value: {forms} (exactly one of them)"
        ));
    };
    let x = &o[k];
    let list = |name: &str| -> Result<&Vec<Value>, String> {
        x.as_array()
            .ok_or_else(|| format!("`{what}.{name}` must be a list"))
    };
    let mut out = vec![0u8; size as usize];
    match k.as_str() {
        "bytes" => {
            let l = list("bytes")?;
            if l.len() != size as usize {
                return Err(format!(
                    "`{what}.bytes` has {} values; the argument is {size} bytes",
                    l.len()
                ));
            }
            for (i, b) in l.iter().enumerate() {
                let n = uint(b, &format!("{what}.bytes[{i}]"))?;
                out[i] = u8::try_from(n)
                    .map_err(|_| format!("`{what}.bytes[{i}]` {n} is not a byte"))?;
            }
        }
        "dwords" => {
            if !size.is_multiple_of(4) {
                return Err(format!(
                    "`{what}` is {size} bytes, not a whole number of dwords: give {{\"bytes\": …}} or {{\"fields\": …}}"
                ));
            }
            let l = list("dwords")?;
            if l.len() != size as usize / 4 {
                return Err(format!(
                    "`{what}.dwords` has {} values; the argument is {} dwords",
                    l.len(),
                    size / 4
                ));
            }
            for (i, d) in l.iter().enumerate() {
                let n = uint(d, &format!("{what}.dwords[{i}]"))?;
                let n = u32::try_from(n)
                    .map_err(|_| format!("`{what}.dwords[{i}]` {n} is not a dword"))?;
                out[4 * i..4 * i + 4].copy_from_slice(&n.to_le_bytes());
            }
        }
        "fields" => {
            // Which field set each byte.
            let mut owner: Vec<Option<usize>> = vec![None; size as usize];
            for (i, f) in list("fields")?.iter().enumerate() {
                let at = format!("{what}.fields[{i}]");
                let fo = f
                    .as_object()
                    .ok_or_else(|| format!("`{at}` must be {{\"offset\", \"size\", \"value\"}}"))?;
                if let Some(k) = fo
                    .keys()
                    .find(|k| !matches!(k.as_str(), "offset" | "size" | "value"))
                {
                    return Err(format!(
                        "`{at}.{k}` is not a field key (offset, size, value)"
                    ));
                }
                let get = |k: &str| -> Result<u64, String> {
                    let v = fo.get(k).ok_or_else(|| format!("`{at}` needs `{k}`"))?;
                    // A field's value may be negative, its place not.
                    if k == "value" {
                        int(v, &format!("{at}.{k}"))
                    } else {
                        uint(v, &format!("{at}.{k}"))
                    }
                };
                let (off, fsize, val) = (get("offset")?, get("size")?, get("value")?);
                if !matches!(fsize, 1 | 2 | 4 | 8) {
                    return Err(format!("`{at}.size` {fsize} is not 1, 2, 4 or 8"));
                }
                let end = off.saturating_add(fsize);
                if end > u64::from(size) {
                    return Err(format!(
                        "`{at}` ({}) runs past the {size}-byte argument",
                        byte_ranges(
                            &(off as u32..end.min(u64::from(u32::MAX)) as u32).collect::<Vec<_>>()
                        )
                    ));
                }
                if !fits(val, fsize as u32) {
                    return Err(format!("`{at}.value` {val} does not fit in {fsize} bytes"));
                }
                let over: Vec<u32> = (off as u32..end as u32)
                    .filter(|&b| owner[b as usize].is_some())
                    .collect();
                if let Some(&b) = over.first() {
                    let j = owner[b as usize].unwrap_or(0);
                    return Err(format!(
                        "`{at}` overlaps `{what}.fields[{j}]` at {}: give every byte exactly once",
                        byte_ranges(&over)
                    ));
                }
                for b in 0..fsize as usize {
                    owner[off as usize + b] = Some(i);
                    out[off as usize + b] = (val >> (8 * b)) as u8;
                }
            }
            let gaps: Vec<u32> = (0..size).filter(|&b| owner[b as usize].is_none()).collect();
            if !gaps.is_empty() {
                return Err(format!(
                    "`{what}.fields` leave {} of the {size}-byte argument unset: give every byte exactly once (padding too)",
                    byte_ranges(&gaps)
                ));
            }
        }
        "size" | "fill" | "data" => {
            return Err(format!(
                "`{what}` is a {size}-byte value (by_value), not a buffer: {forms}"
            ))
        }
        "local" => {
            return Err(format!(
                "`{what}` is a {size}-byte value (by_value), not a `__local` pointer: {forms}"
            ))
        }
        other => {
            return Err(format!(
                "`{what}.{other}` is not a way to give a value (bytes, dwords, fields)"
            ))
        }
    }
    Ok(ArgValue::Bytes(out))
}

/// The size in LDS bytes of a `__local` pointer argument: `{"local":
/// BYTES}`.
fn local_size(v: &Value, what: &str) -> Result<u32, String> {
    let how = "give its size in LDS bytes as {\"local\": BYTES}";
    let o = v.as_object().ok_or_else(|| {
        format!("`{what}` is a `__local` pointer (dynamic_shared_pointer): {how}")
    })?;
    if let Some(k) = o.keys().find(|k| k.as_str() != "local") {
        let buf = matches!(k.as_str(), "size" | "fill" | "data");
        return Err(format!(
            "`{what}` is a `__local` pointer (dynamic_shared_pointer){}: {how}",
            if buf { ", not a buffer" } else { "" }
        ));
    }
    let n = uint(&o["local"], &format!("{what}.local"))?;
    match u32::try_from(n) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "`{what}.local` {n} is not a size in bytes (1 or more, at most the LDS)"
        )),
    }
}

impl Launch {
    /// Reads the launch file `path` ([`Launch::parse`]); errors name it.
    pub fn read(
        path: &std::path::Path,
        prog: &asm::Program,
        profile: Profile,
        kernel: Option<&str>,
        seed: Option<u64>,
    ) -> gpucosim_tb::error::Result<Launch> {
        use gpucosim_tb::error::Error;
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Launch::parse(&text, prog, profile, kernel, seed)
            .map_err(|e| Error::Input(format!("{}: {e}", path.display())))
    }

    /// Reads a launch description (JSON) for a kernel of `prog`.
    pub fn parse(
        text: &str,
        prog: &asm::Program,
        profile: Profile,
        kernel: Option<&str>,
        seed: Option<u64>,
    ) -> Result<Launch, String> {
        let v: Value =
            gpucosim_tb::json::from_str(text).map_err(|e| gpucosim_tb::json::what_is_wrong(&e))?;
        let o = v.as_object().ok_or("the launch must be a JSON object")?;
        const KEYS: &[&str] = &[
            "kernel",
            "grid",
            "workgroups",
            "workgroup",
            "args",
            "lds_size",
            "alignment",
            "run",
            "seed",
            "allow_lds_out_of_range",
        ];
        if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("`{k}` is not a launch field ({})", KEYS.join(", ")));
        }
        let names: Vec<&str> = prog.kernels.iter().map(|k| k.name.as_str()).collect();
        let named = match o.get("kernel") {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .ok_or("`kernel` must be a string: the kernel's name")?,
            ),
        };
        let kernel = match (kernel, named) {
            (Some(k), _) | (None, Some(k)) => k.to_string(),
            (None, None) if names.len() == 1 => names[0].to_string(),
            (None, None) => {
                return Err(format!(
                    "the file has {} kernels ({}): name one (`kernel` in the launch, or --kernel)",
                    names.len(),
                    names.join(", ")
                ))
            }
        };
        if !names.contains(&kernel.as_str()) {
            return Err(format!(
                "no kernel `{kernel}` in the file (kernels: {})",
                names.join(", ")
            ));
        }
        let desc = Descriptor::of(prog, &kernel, profile)?;
        let meta = metadata(prog, &kernel)?;
        if desc.private_bytes > 0 {
            return Err(format!(
                "kernel `{kernel}` uses {} bytes of scratch per work-item: scratch is not emulated",
                desc.private_bytes
            ));
        }
        let file_seed = match o.get("seed") {
            None => None,
            Some(v) => Some(uint(v, "seed")?),
        };
        let seed = seed.or(file_seed).unwrap_or(1);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let wg = match (o.get("workgroup"), meta.reqd_workgroup_size) {
            (Some(w), reqd) => {
                let w = dims(w, "workgroup")?;
                if let Some(r) = reqd.filter(|r| *r != w) {
                    return Err(format!(
                        "`workgroup` {w:?} differs from the kernel's required work-group size {r:?}"
                    ));
                }
                w
            }
            (None, Some(r)) => r,
            (None, None) => {
                return Err(format!(
                    "kernel `{kernel}` has no required work-group size: give `workgroup`"
                ))
            }
        };
        if wg.iter().product::<u32>() > 1024 {
            return Err(format!("`workgroup` {wg:?} has more than 1024 work-items"));
        }
        let grid = match (o.get("grid"), o.get("workgroups")) {
            (Some(g), None) => dims(g, "grid")?,
            (None, Some(n)) => {
                let n = dims(n, "workgroups")?;
                let mut g = [0; 3];
                for i in 0..3 {
                    g[i] = n[i]
                        .checked_mul(wg[i])
                        .ok_or("`workgroups` times `workgroup` overflows")?;
                }
                g
            }
            (Some(_), Some(_)) => return Err("give `grid` or `workgroups`, not both".into()),
            (None, None) => {
                return Err("give `grid` (work-items) or `workgroups` (work-groups)".into())
            }
        };
        // Explicit arguments, by name or position.
        let explicit: Vec<(usize, &ArgInfo)> = meta
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.hidden())
            .collect();
        let label = |i: usize, a: &ArgInfo| a.name.clone().unwrap_or_else(|| format!("arg{i}"));
        // Every argument's kind, hidden ones too: one the emulator cannot
        // represent is an error before anything else.
        for (n, a) in meta.args.iter().enumerate() {
            let l = match explicit.iter().position(|&(k, _)| k == n) {
                Some(i) => label(i, a),
                None => a.name.clone().unwrap_or_else(|| a.kind.clone()),
            };
            a.class(&l)?;
        }
        let given: Vec<Option<&Value>> = match o.get("args") {
            None => vec![None; explicit.len()],
            Some(Value::Array(a)) => {
                if a.len() != explicit.len() {
                    return Err(format!(
                        "`args` has {} values; kernel `{kernel}` takes {}",
                        a.len(),
                        explicit.len()
                    ));
                }
                a.iter().map(Some).collect()
            }
            Some(Value::Object(m)) => {
                let labels: Vec<String> = explicit
                    .iter()
                    .enumerate()
                    .map(|(i, (_, a))| label(i, a))
                    .collect();
                if let Some(k) = m.keys().find(|k| !labels.contains(k)) {
                    return Err(format!(
                        "`args.{k}`: kernel `{kernel}` has no such argument ({})",
                        labels.join(", ")
                    ));
                }
                labels.iter().map(|l| m.get(l)).collect()
            }
            Some(_) => return Err("`args` must be a list or an object".into()),
        };
        let (_, ram_dwords) = gpucosim_model::lds::tlm::geometry(profile, desc.wgp);
        let lds_max = u64::from(ram_dwords) * 4;
        let mut args = Vec::new();
        let mut lds_args = Vec::new();
        // The `__local` arguments go after the static group segment, in
        // argument order, each at its pointee's alignment (as ROCclr lays
        // them out); `lds_end` is where the last ends.
        let mut lds_end = u64::from(desc.lds_bytes);
        for (i, ((_, a), g)) in explicit.iter().zip(given).enumerate() {
            let name = label(i, a);
            let what = format!("args.{name}");
            let g = g.ok_or_else(|| format!("`{what}` is missing"))?;
            let v = match a.class(&name)? {
                ArgClass::Buffer => ArgValue::Buffer(buffer(g, &what, &mut rng)?),
                ArgClass::Local => {
                    let size = local_size(g, &what)?;
                    let align = a.pointee_align.unwrap_or(DEFAULT_LOCAL_ALIGN).max(1);
                    if !align.is_power_of_two() {
                        return Err(format!(
                            "argument `{name}` has `.pointee_align: {align}`, not a power of two"
                        ));
                    }
                    let offset = lds_end.next_multiple_of(u64::from(align));
                    lds_end = offset + u64::from(size);
                    if lds_end > lds_max {
                        return Err(format!(
                            "`{what}`: {size} bytes at LDS offset {offset} end past the {lds_max} bytes of LDS"
                        ));
                    }
                    let offset = offset as u32;
                    lds_args.push(LdsArg {
                        name: name.clone(),
                        offset,
                        size,
                        align,
                    });
                    ArgValue::Local { offset, size }
                }
                ArgClass::Value => by_value(g, &what, a.size)?,
                ArgClass::Hidden => return Err(format!("`{what}` is a hidden argument")),
            };
            args.push((name, v));
        }
        let lds_end = lds_end as u32;
        let layout = || {
            let mut s = format!("{} static", desc.lds_bytes);
            for l in &lds_args {
                s += &format!(", `{}` {} at {}", l.name, l.size, l.offset);
            }
            s
        };
        let lds_size = match o.get("lds_size") {
            Some(x) => {
                u32::try_from(uint(x, "lds_size")?).map_err(|_| "`lds_size` is too large")?
            }
            None => lds_end,
        };
        if u64::from(lds_size) > lds_max {
            return Err(format!(
                "`lds_size` {lds_size} is more than the {lds_max} bytes of LDS"
            ));
        }
        if lds_size < lds_end {
            return Err(if lds_args.is_empty() {
                format!(
                    "`lds_size` {lds_size} is less than the kernel's {} bytes of local memory",
                    desc.lds_bytes
                )
            } else {
                format!(
                    "`lds_size` {lds_size} is less than the {lds_end} bytes the kernel's local memory and `__local` arguments take ({})",
                    layout()
                )
            });
        }
        let allow_lds_out_of_range = match o.get("allow_lds_out_of_range") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("`allow_lds_out_of_range` must be true or false".into()),
        };
        let align_mode = match o.get("alignment").map(|a| a.as_str().ok_or(a)) {
            None => 3,
            Some(Ok(s)) => gpucosim_model::ta::isa::ALIGN_MODES
                .iter()
                .position(|m| *m == s)
                .ok_or_else(|| {
                    format!(
                        "`alignment`: `{s}` is not a mode ({})",
                        gpucosim_model::ta::isa::ALIGN_MODES.join(", ")
                    )
                })? as u32,
            Some(Err(_)) => return Err("`alignment` must be a string".into()),
        };
        let count: [u32; 3] = [0, 1, 2].map(|i| grid[i].div_ceil(wg[i]));
        let total = u64::from(count[0]) * u64::from(count[1]) * u64::from(count[2]);
        let coord = |n: u64| {
            [
                (n % u64::from(count[0])) as u32,
                (n / u64::from(count[0]) % u64::from(count[1])) as u32,
                (n / u64::from(count[0]) / u64::from(count[1])) as u32,
            ]
        };
        let too_many = |n: u64, what: &str| -> Result<(), String> {
            if n <= MAX_GROUPS {
                return Ok(());
            }
            Err(format!(
                "{what} {n} work-groups (grid {} x {} x {}, work-groups of {} x {} x {}): more than the {MAX_GROUPS} one emulation runs; sample some with \"run\": {{\"sample\": N}} (N up to {MAX_GROUPS})",
                grid[0], grid[1], grid[2], wg[0], wg[1], wg[2]
            ))
        };
        let run: Vec<[u32; 3]> = match o.get("run") {
            None => {
                too_many(total, "the launch has")?;
                (0..total).map(coord).collect()
            }
            Some(Value::String(s)) if s == "all" => {
                too_many(total, "`run`: \"all\" is")?;
                (0..total).map(coord).collect()
            }
            Some(Value::Object(m)) if m.len() == 1 && m.contains_key("sample") => {
                let n = uint(&m["sample"], "run.sample")?;
                if n == 0 || n > total {
                    return Err(format!(
                        "`run.sample` {n} is not between 1 and the launch's {total} work-group(s)"
                    ));
                }
                too_many(n, "`run.sample` asks for")?;
                // The first and the last, and others drawn with the seed.
                let mut pick = std::collections::BTreeSet::new();
                pick.insert(0);
                if n > 1 {
                    pick.insert(total - 1);
                }
                while (pick.len() as u64) < n {
                    pick.insert(rng.gen_range(0..total));
                }
                pick.into_iter().take(n as usize).map(coord).collect()
            }
            Some(Value::Array(l)) => l
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let d = c
                        .as_array()
                        .filter(|a| (1..=3).contains(&a.len()))
                        .ok_or_else(|| format!("`run[{i}]` must be a work-group id [x, y, z]"))?;
                    let mut w = [0u32; 3];
                    for (k, x) in d.iter().enumerate() {
                        w[k] = x
                            .as_u64()
                            .filter(|&x| x < u64::from(count[k]))
                            .ok_or_else(|| format!("`run[{i}][{k}]` must be below {}", count[k]))?
                            as u32;
                    }
                    Ok(w)
                })
                .collect::<Result<Vec<[u32; 3]>, String>>()
                .and_then(|ids| {
                    let mut seen = std::collections::HashMap::new();
                    for (i, w) in ids.iter().enumerate() {
                        if let Some(j) = seen.insert(*w, i) {
                            return Err(format!(
                                "`run[{i}]` is work-group [{}, {}, {}] again (`run[{j}]`): each runs once",
                                w[0], w[1], w[2]
                            ));
                        }
                    }
                    Ok(ids)
                })?,
            Some(_) => {
                return Err(
                    "`run` must be \"all\", {\"sample\": N} or a list of work-group ids".into(),
                )
            }
        };
        Ok(Launch {
            kernel,
            desc,
            meta,
            grid,
            wg,
            args,
            lds_size,
            lds_args,
            allow_lds_out_of_range,
            align_mode,
            run,
            seed,
            data: prog.data.clone(),
        })
    }

    /// Where each data object of the file lies, by symbol: from
    /// `DATA_BASE` on, each at its alignment, in file order.
    pub fn data_addresses(&self) -> std::collections::HashMap<String, u64> {
        let mut at = DATA_BASE;
        let mut out = std::collections::HashMap::new();
        for d in &self.data {
            at = at.next_multiple_of(d.align.max(1));
            out.insert(d.name.clone(), at);
            at += (d.bytes.len() as u64).max(1);
        }
        out
    }

    /// Work-groups per dimension.
    pub fn counts(&self) -> [u32; 3] {
        [0, 1, 2].map(|i| self.grid[i].div_ceil(self.wg[i]))
    }

    /// The size of work-group `g` (smaller at the grid's far edges).
    pub fn wg_size(&self, g: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|i| (self.grid[i] - g[i] * self.wg[i]).min(self.wg[i]))
    }

    /// The address of buffer argument `i` (index among explicit args).
    pub fn buffer_base(&self, i: usize) -> u64 {
        BUFFER_BASE + BUFFER_SPACING * i as u64 * 4
    }

    /// The memory the kernel starts with: each buffer, the kernel argument
    /// segment (explicit and hidden arguments), the dispatch packet and the
    /// queue.
    pub fn memory(&self) -> Result<Memory, String> {
        let mut mem = Memory::default();
        let mut bases = Vec::new();
        for (i, (name, v)) in self.args.iter().enumerate() {
            if let ArgValue::Buffer(b) = v {
                if b.len() as u64 > 4 * BUFFER_SPACING {
                    return Err(format!("buffer `{name}` is too large"));
                }
                let base = self.buffer_base(i);
                mem.map(name, base, b.clone());
                bases.push(base);
            } else {
                bases.push(0);
            }
        }
        let size = self
            .meta
            .args
            .iter()
            .map(|a| a.offset + a.size)
            .max()
            .unwrap_or(0)
            .max(self.meta.kernarg_size)
            .max(8);
        let mut ka = vec![0u8; size as usize];
        let put = |ka: &mut Vec<u8>, off: u32, size: u32, v: u64| {
            for b in 0..size.min(8) {
                ka[(off + b) as usize] = (v >> (8 * b)) as u8;
            }
        };
        let mut explicit = 0;
        let dims =
            1 + u32::from(self.grid[1] > 1 || self.grid[2] > 1) + u32::from(self.grid[2] > 1);
        for a in &self.meta.args {
            let v = if !a.hidden() {
                let i = explicit;
                explicit += 1;
                let (name, v) = self
                    .args
                    .get(i)
                    .ok_or_else(|| format!("argument {i} has no value"))?;
                match v {
                    ArgValue::Scalar(n) => *n,
                    ArgValue::Buffer(_) => bases[i],
                    ArgValue::Local { offset, .. } => u64::from(*offset),
                    ArgValue::Bytes(b) => {
                        if b.len() != a.size as usize {
                            return Err(format!(
                                "`args.{name}` has {} bytes; the argument is {}",
                                b.len(),
                                a.size
                            ));
                        }
                        let off = a.offset as usize;
                        ka[off..off + b.len()].copy_from_slice(b);
                        continue;
                    }
                }
            } else {
                let k = |s: &str| -> Option<usize> {
                    a.kind.strip_prefix(s).and_then(|x| match x {
                        "x" => Some(0),
                        "y" => Some(1),
                        "z" => Some(2),
                        _ => None,
                    })
                };
                if let Some(d) = k("hidden_block_count_") {
                    u64::from(self.counts()[d])
                } else if let Some(d) = k("hidden_group_size_") {
                    u64::from(self.wg[d])
                } else if let Some(d) = k("hidden_remainder_") {
                    u64::from(self.grid[d] % self.wg[d])
                } else if a.kind == "hidden_grid_dims" {
                    u64::from(dims)
                } else if a.kind == "hidden_dynamic_lds_size" {
                    u64::from(self.lds_size.saturating_sub(self.desc.lds_bytes))
                } else if a.kind == "hidden_queue_ptr" {
                    QUEUE_BASE
                } else {
                    // Offsets, printf and hostcall buffers, …: none.
                    0
                }
            };
            put(&mut ka, a.offset, a.size, v);
        }
        // The segment is allocated 16-byte aligned (HSA's minimum kernarg
        // alignment), and compilers read whole dwordx4s of it: the bytes
        // past its end up to that boundary exist but hold nothing known.
        mem.map_padded("kernarg", KERNARG_BASE, ka, 16);
        // hsa_kernel_dispatch_packet_t.
        let mut p = vec![0u8; 64];
        let w16 = |p: &mut Vec<u8>, off: usize, v: u32| {
            p[off..off + 2].copy_from_slice(&(v as u16).to_le_bytes())
        };
        let w32 =
            |p: &mut Vec<u8>, off: usize, v: u32| p[off..off + 4].copy_from_slice(&v.to_le_bytes());
        w16(&mut p, 2, dims);
        for d in 0..3 {
            w16(&mut p, 4 + 2 * d, self.wg[d]);
            w32(&mut p, 12 + 4 * d, self.grid[d]);
        }
        w32(&mut p, 28, self.lds_size);
        p[40..48].copy_from_slice(&KERNARG_BASE.to_le_bytes());
        mem.map("dispatch", DISPATCH_BASE, p);
        mem.map("queue", QUEUE_BASE, vec![0; 256]);
        let at = self.data_addresses();
        for d in &self.data {
            let base = at[&d.name];
            if d.unknown.is_some() {
                mem.map_unknown(&d.name, base, d.bytes.len().max(1));
            } else if !d.bytes.is_empty() {
                mem.map(&d.name, base, d.bytes.clone());
            }
        }
        Ok(mem)
    }
}
