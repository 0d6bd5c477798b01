//! UnrealScript from bytecode: a class's declarations, functions, states
//! and default properties rebuilt from its exports (UE1 v61–69, UE2
//! v100–129).
//!
//! - [`read`]: the token reader (bounds-checked, errors name the offset).
//! - [`flow`]: `if`/`else`, loops, `foreach`, `switch` rebuilt from jumps.
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

pub mod decl;
pub mod flow;
pub mod natives;
pub mod read;
pub mod repl;

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
