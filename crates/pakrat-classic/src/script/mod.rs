//! UnrealScript from bytecode: a class's declarations, functions, states
//! and default properties rebuilt from its exports (UE1 v61–69, UE2
//! v100–129).
//!
//! - [`read`]: the token reader (bounds-checked, errors name the offset).
//! - [`flow`]: `if`/`else`, loops, `foreach`, `switch` rebuilt from jumps.
//! - `consts` (private): int literals written as their class's named
//!   constants where the sources name them.
//! - `conv` (private): which byte/int/float conversions are written back,
//!   `coerce` parameters, Vengeance's constructor form of `new`.
//! - [`natives`]: native functions and operators by index, from the
//!   package and the packages given beside it.
//! - [`decl`]: declarations (class line, variables, functions, states).
//! - [`repl`]: the `replication` block (conditions at each `RepOffset`).
//!
//! ```no_run
//! # fn main() -> pakrat_io::Result<()> {
//! let src = pakrat_io::Source::open("Engine.u")?;
//! let pkg = pakrat_classic::Package::parse(&src)?;
//! let mut natives = pakrat_classic::script::natives::NativeTable::new();
//! natives.add(&pkg); // then Core's, for the operators
//! for i in 0..pkg.exports.len() {
//!     if pkg.exports[i].class.is_none() {
//!         println!("{}", pakrat_classic::script::decompile_class(&pkg, "Engine", i, &natives)?);
//!     }
//! }
//! # Ok(()) }
//! ```

mod consts;
mod conv;
pub mod decl;
pub mod flow;
pub mod natives;
pub mod probes;
pub mod read;
pub mod repl;
mod stmt;
mod v469;

use pakrat_io::{Error, Result};

use crate::headers::model::struct_header;
use crate::package::Package;

/// State labels: (name, memory offset).
pub type Labels = Vec<(String, u32)>;

/// What a decompilation needs to know about where it is.
pub struct Ctx<'p, 'a> {
    /// The package.
    pub pkg: &'p Package<'a>,
    /// The package's name.
    pub package: String,
    /// The class export being decompiled.
    pub class: usize,
}

/// The statements of struct export `i` (function, state or class), with
/// the state labels the script's label table names.
pub fn statements(
    ctx: &Ctx<'_, '_>,
    natives: &dyn natives::Natives,
    i: usize,
) -> Result<(Vec<read::Located>, Labels)> {
    let pkg = ctx.pkg;
    let base = pkg.exports.get(i).map_or(0, |e| u64::from(e.serial_offset));
    let h = struct_header(pkg, i)
        .ok_or_else(|| Error::invalid(base, "struct fields (UField, UStruct) do not parse"))?;
    let size = u32::try_from(h.script_size)
        .map_err(|_| Error::invalid(base, format!("negative ScriptSize {}", h.script_size)))?;
    if size > 0xFFFF {
        return Err(Error::invalid(
            base,
            format!("ScriptSize {size} over 64 KiB"),
        ));
    }
    let bytes = h.rest.rest();
    let mut tr = read::TokenReader::new(bytes, h.rest.offset(), ctx, natives);
    tr.func = pkg.name(pkg.exports[i].object_name).to_string();
    if pkg.export_class_name(i).ok() == Some("Function") {
        tr.ret_enum = natives::function_info(pkg, i).and_then(|f| f.ret);
        tr.locals = crate::headers::model::children(pkg, i)
            .into_iter()
            .map(|k| pkg.name(pkg.exports[k].object_name).to_lowercase())
            .collect();
    }
    let s = tr.statements(size)?;
    let labels = s
        .iter()
        .filter_map(|l| match &l.stmt {
            read::Stmt::Labels(v) => Some(v.clone()),
            _ => None,
        })
        .next()
        .unwrap_or_default();
    Ok((s, labels))
}

/// The body of struct export `i` as indented lines (the compiler's
/// closing `return;` dropped).
pub fn body_lines(
    ctx: &Ctx<'_, '_>,
    natives: &dyn natives::Natives,
    i: usize,
) -> Result<flow::Lines> {
    let (s, labels) = statements(ctx, natives, i)?;
    let mut lines = flow::structure(&s, &labels);
    // The compiler's closing `return;` (jumps may point at it, so it is
    // structured with the rest and dropped here).
    while lines
        .last()
        .is_some_and(|(ind, t)| *ind == 1 && t == "return;")
    {
        lines.pop();
    }
    Ok(lines)
}

/// Decompile class export `class` of `pkg` (named `package`) into
/// UnrealScript source.
pub fn decompile_class(
    pkg: &Package<'_>,
    package: &str,
    class: usize,
    natives: &dyn natives::Natives,
) -> Result<String> {
    let ctx = Ctx {
        pkg,
        package: package.to_string(),
        class,
    };
    decl::class_source(&ctx, natives, class)
}

/// What a state stores after its bytecode (UT432 `UnClass.cpp`
/// `UState::Serialize`): `ProbeMask` and `IgnoreMask` (u64 each),
/// `LabelTableOffset` (u16) and `StateFlags` (u32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateTail {
    /// Probes the state's functions implement.
    pub probe_mask: u64,
    /// A probe's bit is cleared when the state `ignores` it.
    pub ignore_mask: u64,
    /// `STATE_Editable` 0x1, `STATE_Auto` 0x2, `STATE_Simulated` 0x4.
    pub flags: u32,
}

/// The tail of state export `i` (read after its bytecode).
pub fn state_tail(
    ctx: &Ctx<'_, '_>,
    natives: &dyn natives::Natives,
    i: usize,
) -> Option<StateTail> {
    let pkg = ctx.pkg;
    let h = struct_header(pkg, i)?;
    let size = u32::try_from(h.script_size).ok()?;
    let bytes = h.rest.rest();
    let mut tr = read::TokenReader::new(bytes, h.rest.offset(), ctx, natives);
    tr.statements(size).ok()?;
    let mut r = pakrat_io::Reader::with_base(bytes.get(tr.disk_pos()..)?, 0);
    let probe_mask = r.u64("ProbeMask").ok()?;
    let ignore_mask = r.u64("IgnoreMask").ok()?;
    r.u16("LabelTableOffset").ok()?;
    let flags = r.u32("StateFlags").ok()?;
    Some(StateTail {
        probe_mask,
        ignore_mask,
        flags,
    })
}

/// Whether function export `f` is the empty function the compiler gives a
/// state for each name its `ignores` list holds that is not a probe: it
/// is declared but not defined (no `FUNC_Defined`, 0x2, in `UnStack.h`),
/// where every function the source writes with a body has that flag, and
/// it has no other flag. A state may also declare a function without a
/// body (`exec function ViewSelf();`), which means the same; with a
/// modifier it is written that way (see `decl`), without one as `ignores`,
/// the more common form.
pub fn is_ignore_stub(pkg: &Package<'_>, f: usize) -> bool {
    pkg.export_class_name(f).ok() == Some("Function")
        && natives::function_info(pkg, f).is_some_and(|i| i.flags & (0x2 | 0x400) == 0)
}

/// The names state export `s` ignores: the probes whose `IgnoreMask` bit is
/// cleared (the names of the package's generation, [`probes`]), then the
/// other functions, from their empty stubs ([`is_ignore_stub`]).
pub fn ignores(ctx: &Ctx<'_, '_>, natives: &dyn natives::Natives, s: usize) -> Vec<String> {
    let pkg = ctx.pkg;
    let mut out: Vec<String> = match state_tail(ctx, natives, s) {
        Some(t) => probes::probes_for(pkg.summary.version)
            .iter()
            .enumerate()
            .filter(|(b, _)| t.ignore_mask & (1u64 << b) == 0)
            .filter_map(|(_, n)| n.map(str::to_string))
            .collect(),
        None => Vec::new(),
    };
    let stubs: Vec<usize> = crate::headers::model::children(pkg, s)
        .into_iter()
        .filter(|&f| is_ignore_stub(pkg, f))
        .collect();
    // Children are listed last declared first.
    out.extend(
        stubs
            .iter()
            .rev()
            .map(|&f| pkg.name(pkg.exports[f].object_name).to_string()),
    );
    out
}

/// The UE1 probe names, by bit (`UnNames.h` of UT432–UT469: names 300–362,
/// `NAME_PROBEMIN` 300); `None` for the unnamed `ProbeNN` slots.
pub const UE1_PROBES: [Option<&str>; 63] = {
    const N: Option<&str> = None;
    [
        Some("Spawned"),
        Some("Destroyed"),
        Some("GainedChild"),
        Some("LostChild"),
        Some("OwnerChanged"),
        N,
        Some("Trigger"),
        Some("UnTrigger"),
        Some("Timer"),
        Some("HitWall"),
        Some("Falling"),
        Some("Landed"),
        Some("ZoneChange"),
        Some("Touch"),
        Some("UnTouch"),
        Some("Bump"),
        Some("BeginState"),
        Some("EndState"),
        Some("BaseChange"),
        Some("Attach"),
        Some("Detach"),
        Some("ActorEntered"),
        Some("ActorLeaving"),
        Some("KillCredit"),
        Some("AnimEnd"),
        Some("EndedRotation"),
        Some("InterpolateEnd"),
        Some("EncroachingOn"),
        Some("EncroachedBy"),
        Some("FootZoneChange"),
        Some("HeadZoneChange"),
        Some("PainTimer"),
        Some("SpeechTimer"),
        Some("MayFall"),
        N,
        Some("Die"),
        Some("Tick"),
        Some("PlayerTick"),
        Some("Expired"),
        N,
        Some("SeePlayer"),
        Some("EnemyNotVisible"),
        Some("HearNoise"),
        Some("UpdateEyeHeight"),
        Some("SeeMonster"),
        Some("SeeFriend"),
        Some("SpecialHandling"),
        Some("BotDesireability"),
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
        N,
    ]
};
