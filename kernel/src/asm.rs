//! Reading AMDGPU assembly as users have it: `clang -S` output (directives,
//! labels, `;` comments) and `llvm-objdump -d` output (a `<symbol>:` header
//! per function, each instruction followed by `// address: encoding`).
//! A file holds one or more kernels; each is read into its instructions
//! with their line, address (objdump only), mnemonic and operands, and its
//! labels. Functions that are not kernels (helpers clang keeps beside the
//! kernels) are kept apart, each with the kernel that reaches it, if any.

use std::collections::{HashMap, HashSet};

/// One instruction as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inst {
    /// 1-based line in the file.
    pub line: usize,
    /// Byte address, when the input gives it (objdump).
    pub addr: Option<u64>,
    /// The mnemonic, lower case.
    pub mnemonic: String,
    /// The operand text after the mnemonic, comments removed.
    pub operands: String,
}

impl Inst {
    /// The instruction as written (mnemonic and operands).
    pub fn text(&self) -> String {
        if self.operands.is_empty() {
            self.mnemonic.clone()
        } else {
            format!("{} {}", self.mnemonic, self.operands)
        }
    }

    /// The comma-separated operands (commas inside brackets or parentheses
    /// do not separate), trimmed; modifiers stay with the operand they
    /// follow (`v1 offset1:2`).
    pub fn operand_list(&self) -> Vec<&str> {
        split_top(&self.operands)
    }

    /// Where the instruction is, for reports: `line 40` or `line 40
    /// (0x9c)`.
    pub fn place(&self) -> String {
        match self.addr {
            Some(a) => format!("line {} ({a:#x})", self.line),
            None => format!("line {}", self.line),
        }
    }
}

/// Splits at commas outside brackets and parentheses.
pub fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

/// A kernel (or other function) of the file.
#[derive(Debug, Clone, Default)]
pub struct Kernel {
    /// Its symbol.
    pub name: String,
    /// The 1-based line of its label (assembler output) or header
    /// (objdump).
    pub line: usize,
    /// Its instructions in order.
    pub insts: Vec<Inst>,
    /// Label → index of the instruction it precedes (`insts.len()` for a
    /// label at the end).
    pub labels: HashMap<String, usize>,
}

impl Kernel {
    /// The index of the instruction at byte address `addr` (objdump).
    pub fn at_addr(&self, addr: u64) -> Option<usize> {
        self.insts.iter().position(|i| i.addr == Some(addr))
    }
}

/// What a file says about its target (`.amdgcn_target`, or objdump's
/// `file format` line does not say; `None` then).
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// The processor named by `.amdgcn_target` (`gfx900`), if any.
    pub target: Option<String>,
    /// The kernels, in file order.
    pub kernels: Vec<Kernel>,
    /// Each kernel descriptor's directives (`.amdhsa_kernel NAME` …
    /// `.end_amdhsa_kernel`), by kernel name: (`.amdhsa_…` name without
    /// the prefix, value).
    pub descriptors: HashMap<String, Vec<(String, String)>>,
    /// The `.amdgpu_metadata` YAML, if the file has it.
    pub metadata: Option<String>,
    /// The functions that are not kernels, in file order.
    pub functions: Vec<Function>,
    /// The data objects (`.type NAME,@object`: lookup tables of the
    /// built-ins, constant arrays), in file order.
    pub data: Vec<Data>,
}

/// A data object of the file, its bytes as its directives give them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Data {
    /// Its symbol.
    pub name: String,
    /// The line of its label.
    pub line: usize,
    /// Its alignment (bytes), from the `.p2align` before its label.
    pub align: u64,
    /// Its contents.
    pub bytes: Vec<u8>,
    /// Why its contents are not known (a directive the reader does not
    /// evaluate, such as an address of another symbol): then `bytes` has
    /// the object's size and reads are symbolic.
    pub unknown: Option<String>,
}

/// Appends the bytes of data directive `dir` with arguments `args`;
/// `Err` names what is not evaluated.
fn data_bytes(dir: &str, args: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let int = |a: &str| -> Result<i128, String> {
        let a = a.trim();
        let (neg, a) = match a.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, a),
        };
        let v = if let Some(h) = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
            i128::from_str_radix(h, 16)
        } else {
            a.parse::<i128>()
        }
        .map_err(|_| format!("`{dir} {a}` (a value that is not a number)"))?;
        Ok(if neg { -v } else { v })
    };
    let width = match dir {
        ".byte" => 1,
        ".short" | ".2byte" | ".hword" | ".value" => 2,
        ".long" | ".4byte" | ".int" | ".word" => 4,
        ".quad" | ".8byte" => 8,
        ".zero" | ".space" | ".skip" => {
            let mut parts = args.split(',');
            let n = int(parts.next().unwrap_or(""))?;
            let fill = parts.next().map(int).transpose()?.unwrap_or(0);
            if !(0..=1 << 24).contains(&n) {
                return Err(format!("`{dir} {args}` (a size out of range)"));
            }
            out.extend(std::iter::repeat_n(fill as u8, n as usize));
            return Ok(());
        }
        ".ascii" | ".asciz" | ".string" => {
            let t = args.trim();
            let body = t
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .ok_or_else(|| format!("`{dir} {args}` (not one quoted string)"))?;
            let mut chars = body.bytes().peekable();
            while let Some(c) = chars.next() {
                if c != b'\\' {
                    out.push(c);
                    continue;
                }
                let e = chars.next().ok_or("a string ending in `\\`")?;
                out.push(match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match chars.peek() {
                                Some(d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    chars.next();
                                }
                                _ => break,
                            }
                        }
                        v as u8
                    }
                    other => other,
                });
            }
            if dir != ".ascii" {
                out.push(0);
            }
            return Ok(());
        }
        _ => return Err(format!("the directive `{dir}`")),
    };
    for a in args.split(',') {
        let v = int(a)?;
        out.extend_from_slice(&(v as u64).to_le_bytes()[..width]);
    }
    Ok(())
}

/// A function of the file that is not a kernel: a helper clang keeps as a
/// function of its own (it ends in the return `s_setpc_b64 s[30:31]`).
#[derive(Debug, Clone, Default)]
pub struct Function {
    /// Its code.
    pub code: Kernel,
    /// The kernel that reaches it (a call, or any reference to its symbol,
    /// directly or through other functions), if any.
    pub called_by: Option<String>,
}

/// How the kernels of a file are told from its other functions.
#[derive(Debug, Clone)]
pub enum KernelNames<'a> {
    /// From the file itself: the `.amdhsa_kernel` descriptors of assembler
    /// output; without any (an objdump listing, hand-written assembly),
    /// every function is a kernel except those that return with
    /// `s_setpc_b64 s[30:31]` and have no `s_endpgm`.
    FromText,
    /// These names (a code object's `NAME.kd` symbols).
    These(&'a HashSet<String>),
}

/// Removes a comment: `;` in assembler output, `//` in objdump output
/// (where it carries the address, returned too).
fn strip_comment(line: &str) -> (&str, Option<u64>) {
    if let Some(i) = line.find("//") {
        let addr = line[i + 2..]
            .trim()
            .split(':')
            .next()
            .and_then(|h| u64::from_str_radix(h.trim(), 16).ok());
        return (&line[..i], addr);
    }
    match line.find(';') {
        Some(i) => (&line[..i], None),
        None => (line, None),
    }
}

/// The error of a text without functions.
const NO_FUNCTION: &str = "no function found: not AMDGPU assembly (expected assembler output with `.type NAME,@function`, or llvm-objdump -d output)";

/// Reads assembly text. Functions are the symbols declared
/// `.type NAME,@function` (assembler output) or the `<NAME>:` headers
/// (objdump); kernels are told from the other functions as
/// [`KernelNames::FromText`] says. Errors name the line.
pub fn parse(text: &str) -> Result<Program, String> {
    parse_with(text, KernelNames::FromText)
}

/// [`parse`], with the kernels named as `names` says.
pub fn parse_with(text: &str, names: KernelNames) -> Result<Program, String> {
    let mut prog = Program::default();
    let mut functions: Vec<String> = Vec::new();
    let mut objects: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".type") {
            if let Some((name, kind)) = rest.split_once(',') {
                match kind.split(';').next().unwrap_or("").trim() {
                    "@function" => functions.push(name.trim().to_string()),
                    "@object" => objects.push(name.trim().to_string()),
                    _ => {}
                }
            }
        }
    }
    // The data object being read, and the alignment of the next one.
    let mut data: Option<Data> = None;
    let mut align = 1u64;
    if functions.is_empty() && !text.lines().any(|l| objdump_header(l.trim()).is_some()) {
        return Err(NO_FUNCTION.into());
    }
    let mut current: Option<Kernel> = None;
    // Inside `.amdgpu_metadata` … `.end_amdgpu_metadata` (YAML).
    let mut metadata = false;
    // Inside `.amdhsa_kernel NAME` … `.end_amdhsa_kernel`.
    let mut descriptor: Option<String> = None;
    let finish = |k: Option<Kernel>, prog: &mut Program| {
        if let Some(k) = k {
            prog.kernels.push(k);
        }
    };
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        // objdump: `0000000000000000 <reduce_sum>:`
        let t = raw.trim();
        if let Some(name) = objdump_header(t) {
            finish(current.take(), &mut prog);
            current = Some(Kernel {
                name: name.to_string(),
                line: line_no,
                ..Kernel::default()
            });
            continue;
        }
        if metadata {
            metadata = t != ".end_amdgpu_metadata";
            if metadata {
                let m = prog.metadata.get_or_insert_with(String::new);
                m.push_str(raw);
                m.push('\n');
            }
            continue;
        }
        if t == ".amdgpu_metadata" {
            metadata = true;
            continue;
        }
        if let Some(name) = t.strip_prefix(".amdhsa_kernel ") {
            descriptor = Some(name.trim().to_string());
            continue;
        }
        if let Some(name) = &descriptor {
            if t == ".end_amdhsa_kernel" {
                descriptor = None;
            } else if let Some(d) = t.strip_prefix(".amdhsa_") {
                let (k, v) = d.split_once(char::is_whitespace).unwrap_or((d, ""));
                prog.descriptors
                    .entry(name.clone())
                    .or_default()
                    .push((k.to_string(), v.trim().to_string()));
            }
            continue;
        }
        let (code, addr) = strip_comment(raw);
        let code = code.trim();
        if code.is_empty() {
            continue;
        }
        if let Some(rest) = code.strip_prefix(".amdgcn_target") {
            let target = rest.trim().trim_matches('"');
            let cpu = target.rsplit('-').next().unwrap_or("");
            let cpu = cpu.split(':').next().unwrap_or("");
            prog.target = Some(cpu.to_string());
            continue;
        }
        // Data objects: from their label to their `.size`.
        if let Some(label) = code.strip_suffix(':') {
            if objects.iter().any(|o| o == label) {
                if let Some(d) = data.take() {
                    prog.data.push(d);
                }
                finish(current.take(), &mut prog);
                data = Some(Data {
                    name: label.to_string(),
                    line: line_no,
                    align: std::mem::replace(&mut align, 1),
                    ..Data::default()
                });
                continue;
            }
        }
        if let Some(p) = code.strip_prefix(".p2align") {
            if data.is_none() {
                let e = p
                    .split(',')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .parse::<u32>()
                    .unwrap_or(0);
                align = 1u64 << e.min(16);
            }
            continue;
        }
        if let Some(d) = data.as_mut() {
            if let Some(rest) = code.strip_prefix(".size") {
                let (name, size) = rest.split_once(',').unwrap_or((rest, ""));
                if name.trim() == d.name {
                    if let Ok(n) = size.trim().parse::<usize>() {
                        if n != d.bytes.len() && d.unknown.is_none() {
                            d.unknown = Some(format!(
                                "its directives give {} bytes, `.size` {n}",
                                d.bytes.len()
                            ));
                        }
                        d.bytes.resize(n, 0);
                    }
                    prog.data.push(data.take().expect("checked"));
                }
                continue;
            }
            if code.starts_with('.') {
                let (dir, args) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
                let known = matches!(
                    dir,
                    ".section"
                        | ".text"
                        | ".data"
                        | ".bss"
                        | ".type"
                        | ".hidden"
                        | ".weak"
                        | ".globl"
                        | ".protected"
                        | ".local"
                );
                if !known && d.unknown.is_none() {
                    if let Err(e) = data_bytes(dir, args, &mut d.bytes) {
                        d.unknown = Some(format!("line {line_no}: {e} is not evaluated"));
                    }
                }
                continue;
            }
        }
        // A label: `name:` at the start of the line.
        if let Some(label) = code.strip_suffix(':') {
            if !label.contains(char::is_whitespace) {
                if functions.iter().any(|f| f == label) {
                    finish(current.take(), &mut prog);
                    current = Some(Kernel {
                        name: label.to_string(),
                        line: line_no,
                        ..Kernel::default()
                    });
                } else if label.starts_with(".Lfunc_end") {
                    finish(current.take(), &mut prog);
                } else if let Some(k) = current.as_mut() {
                    k.labels.insert(label.to_string(), k.insts.len());
                }
                continue;
            }
        }
        if code.starts_with('.') {
            continue;
        }
        let Some(k) = current.as_mut() else {
            // Text outside any function: objdump's `file format` and
            // section lines.
            if code.starts_with("Disassembly of section") || code.contains("file format") {
                continue;
            }
            return Err(format!(
                "line {line_no}: `{code}` is outside any function (expected assembler output with `.type NAME,@function`, or llvm-objdump -d output)"
            ));
        };
        let (mnemonic, operands) = match code.split_once(char::is_whitespace) {
            Some((m, o)) => (m, o.trim()),
            None => (code, ""),
        };
        if !mnemonic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(format!(
                "line {line_no}: `{code}` is not an instruction, a label or a directive"
            ));
        }
        k.insts.push(Inst {
            line: line_no,
            addr,
            mnemonic: mnemonic.to_ascii_lowercase(),
            operands: operands.to_string(),
        });
    }
    finish(current.take(), &mut prog);
    if let Some(d) = data.take() {
        prog.data.push(d);
    }
    prog.kernels.retain(|k| !k.insts.is_empty());
    if prog.kernels.is_empty() {
        return Err(NO_FUNCTION.into());
    }
    split_functions(&mut prog, names);
    if prog.kernels.is_empty() {
        let names: Vec<String> = prog
            .functions
            .iter()
            .map(|f| format!("`{}`", f.code.name))
            .collect();
        return Err(format!(
            "no kernel found: {} {} not a kernel (no kernel descriptor; a function that returns with `s_setpc_b64 s[30:31]`)",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        ));
    }
    Ok(prog)
}

/// Whether a function returns to a caller: it has the return
/// `s_setpc_b64 s[30:31]` and no `s_endpgm`.
fn returns(k: &Kernel) -> bool {
    let ret = k
        .insts
        .iter()
        .any(|i| i.mnemonic == "s_setpc_b64" && i.operand_list().first() == Some(&"s[30:31]"));
    ret && !k.insts.iter().any(|i| i.mnemonic.starts_with("s_endpgm"))
}

/// The words of an instruction's operands that could be symbols
/// (`maximum` of `maximum@rel32@lo+4`).
fn symbols(i: &Inst) -> impl Iterator<Item = &str> {
    i.operands
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')))
        .filter(|w| !w.is_empty())
}

/// Moves the functions that are not kernels from `prog.kernels` to
/// `prog.functions`, each with the kernel that reaches it.
fn split_functions(prog: &mut Program, names: KernelNames) {
    let from_descriptors: HashSet<String> = prog.descriptors.keys().cloned().collect();
    let is_kernel = |k: &Kernel| match &names {
        KernelNames::These(n) => n.contains(&k.name),
        KernelNames::FromText if !from_descriptors.is_empty() => from_descriptors.contains(&k.name),
        KernelNames::FromText => !returns(k),
    };
    let (kernels, others): (Vec<Kernel>, Vec<Kernel>) = std::mem::take(&mut prog.kernels)
        .into_iter()
        .partition(is_kernel);
    // Which kernel reaches each function: the symbols named in a kernel's
    // operands, then in the functions they reach, and so on.
    let mut called_by: Vec<Option<String>> = vec![None; others.len()];
    let mut work: Vec<(&Kernel, &str)> = kernels.iter().map(|k| (k, k.name.as_str())).collect();
    while let Some((code, root)) = work.pop() {
        let named: HashSet<&str> = code.insts.iter().flat_map(symbols).collect();
        for (f, by) in others.iter().zip(called_by.iter_mut()) {
            if by.is_none() && named.contains(f.name.as_str()) {
                *by = Some(root.to_string());
                work.push((f, root));
            }
        }
    }
    prog.kernels = kernels;
    prog.functions = others
        .into_iter()
        .zip(called_by)
        .map(|(code, called_by)| Function { code, called_by })
        .collect();
}

/// `0000000000000000 <name>:` → `name`.
fn objdump_header(t: &str) -> Option<&str> {
    let (addr, rest) = t.split_once(' ')?;
    if addr.is_empty() || !addr.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    rest.strip_prefix('<')?.strip_suffix(">:")
}
