//! C++ headers of a package's script classes, as the engine's `ucc make -h`
//! (UE1) / `-make -h` (UE2) wrote `<Package>Classes.h`.
//!
//! [`collect`] reads every class of the package into a [`Headers`] model
//! (members in chain order with their types, functions, events, enums,
//! constants, class flags, config name, `cpptext`); [`render`] writes the
//! header text in the form of the package's generation ([`Form`]).
//!
//! The form follows the engine's own generated headers: UT v432's
//! `Engine/Inc/EngineClasses.h` (UE1) and UT2004 v3369's (UE2), both
//! public. What is known to differ from them is listed in
//! `docs/package.md` ("C++ headers").

pub mod model;
mod write;

use pakrat_io::Result;

use crate::package::{ObjRef, Package, Target};
pub use model::{FieldKind, Func, Prop, PropKind};
pub use write::{cpp_type, exported, render, Options};

/// `CLASS_Config`.
pub const CLASS_CONFIG: u32 = 0x4;
/// `CLASS_Transient`.
pub const CLASS_TRANSIENT: u32 = 0x8;
/// `CLASS_NoExport`.
pub const CLASS_NO_EXPORT: u32 = 0x100;
/// `CLASS_NativeReplication`.
pub const CLASS_NATIVE_REPLICATION: u32 = 0x800;

/// Which generation's header form to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// UE1 (v61–69): UT 4xx `ucc make -h`.
    Ue1,
    /// UE2 (v100–129 and later UE2 licensees): UT2004 `-make -h`.
    Ue2,
}

impl Form {
    /// The form for a package version (below 100: UE1).
    pub fn of_version(v: u16) -> Form {
        if v < 100 {
            Form::Ue1
        } else {
            Form::Ue2
        }
    }
}

/// One class of the package.
#[derive(Clone, Debug)]
pub struct HeaderClass {
    /// Its export index.
    pub export: usize,
    /// Script name (`Actor`).
    pub name: String,
    /// C++ name (`AActor`).
    pub cpp_name: String,
    /// C++ name of its superclass (`UObject`).
    pub super_cpp: String,
    /// Native (`RF_Native` on the class object): gets a C++ class.
    pub native: bool,
    /// Class flags, when the class fields were located.
    pub class_flags: Option<u32>,
    /// Config name (`None` when not located or `None`).
    pub config_name: Option<String>,
    /// Its fields in chain order.
    pub fields: Vec<FieldKind>,
    /// Its `cpptext` (UE2), when kept.
    pub cpp_text: Option<String>,
}

impl HeaderClass {
    /// Member variables, in chain order.
    pub fn members(&self) -> impl Iterator<Item = &Prop> {
        self.fields.iter().filter_map(|f| match f {
            FieldKind::Prop(p) => Some(p),
            _ => None,
        })
    }

    /// Functions, in chain order.
    pub fn functions(&self) -> impl Iterator<Item = &Func> {
        self.fields.iter().filter_map(|f| match f {
            FieldKind::Func(p) => Some(p),
            _ => None,
        })
    }

    /// Native functions exported to C++ (`DECLARE_FUNCTION`), chain order.
    pub fn natives(&self) -> impl Iterator<Item = &Func> {
        self.functions()
            .filter(|f| f.flags & model::FUNC_NATIVE != 0 && f.flags & model::FUNC_NO_EXPORT == 0)
    }

    /// Events (`FUNC_Event`) first declared in this class, chain order.
    pub fn events(&self) -> impl Iterator<Item = &Func> {
        self.functions()
            .filter(|f| f.flags & model::FUNC_EVENT != 0 && !f.overrides)
    }

    /// Delegates (UE2 `FUNC_Delegate`) first declared in this class, chain
    /// order.
    pub fn delegates(&self) -> impl Iterator<Item = &Func> {
        self.functions().filter(|f| {
            f.flags & (model::FUNC_DELEGATE | model::FUNC_EVENT) == model::FUNC_DELEGATE
                && !f.overrides
        })
    }
}

/// The classes of a package, in the order the header lists them.
#[derive(Clone, Debug)]
pub struct Headers {
    /// Package name (`Engine`).
    pub package: String,
    /// Header form.
    pub form: Form,
    /// Every class, depth first from the package's root classes, each
    /// class's subclasses in export order.
    pub classes: Vec<HeaderClass>,
}

impl Headers {
    /// The class named `name` (script name, case-insensitive).
    pub fn class(&self, name: &str) -> Option<&HeaderClass> {
        self.classes
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }
}

/// C++ name of a class reference: `A` + name for actors, else `U` + name.
pub fn cpp_class_name(pkg: &Package<'_>, r: ObjRef) -> String {
    let name = pkg.object_name(r).unwrap_or("Object");
    let prefix = if model::is_actor(pkg, r) { 'A' } else { 'U' };
    format!("{prefix}{name}")
}

/// Class exports at the top level, depth first from the roots (classes
/// whose superclass is not a class export of the package), subclasses in
/// export order.
fn class_order(pkg: &Package<'_>) -> Vec<usize> {
    let classes: Vec<usize> = (0..pkg.exports.len())
        .filter(|&i| pkg.exports[i].class.is_none() && pkg.exports[i].outer.is_none())
        .collect();
    let local_super = |i: usize| match pkg.check_ref(pkg.exports[i].super_) {
        Ok(Target::Export(s)) if classes.contains(&s) && s != i => Some(s),
        _ => None,
    };
    let mut out = Vec::with_capacity(classes.len());
    let mut stack: Vec<usize> = classes
        .iter()
        .copied()
        .filter(|&i| local_super(i).is_none())
        .rev()
        .collect();
    while let Some(c) = stack.pop() {
        if out.contains(&c) {
            continue;
        }
        out.push(c);
        let subs: Vec<usize> = classes
            .iter()
            .copied()
            .filter(|&k| local_super(k) == Some(c))
            .collect();
        stack.extend(subs.into_iter().rev());
    }
    // Classes on a superclass loop are not reached from a root: keep them.
    for c in classes {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn text_buffer(pkg: &Package<'_>, r: ObjRef) -> Option<String> {
    let Ok(Target::Export(k)) = pkg.check_ref(r) else {
        return None;
    };
    let (_, _, t) = crate::export::read_text_buffer(pkg, k).ok()?;
    let t = t.to_string();
    (!t.trim().is_empty()).then_some(t)
}

fn read_class(pkg: &Package<'_>, i: usize) -> HeaderClass {
    let e = pkg.exports[i];
    let tail = crate::class::read_class_tail(pkg, i).ok();
    let fields = model::children(pkg, i)
        .into_iter()
        .map(|k| model::read_field(pkg, k))
        .collect();
    let cpp_text = model::struct_header(pkg, i).and_then(|h| text_buffer(pkg, h.cpp_text));
    let super_cpp = if e.super_.is_none() {
        "UObject".to_string()
    } else {
        cpp_class_name(pkg, e.super_)
    };
    HeaderClass {
        export: i,
        name: pkg.name(e.object_name).to_string(),
        cpp_name: cpp_class_name(pkg, ObjRef::export(i)),
        super_cpp,
        native: e.flags & crate::flags::RF_NATIVE != 0,
        class_flags: tail.as_ref().map(|t| t.class_flags),
        config_name: tail
            .as_ref()
            .and_then(|t| t.config_name)
            .map(|n| pkg.name(n).to_string())
            .filter(|n| !n.eq_ignore_ascii_case("None")),
        fields,
        cpp_text,
    }
}

/// Read every class of `pkg` (named `package`, e.g. `Engine`).
pub fn collect(pkg: &Package<'_>, package: &str) -> Result<Headers> {
    if let Err(why) = pkg.summary.object_layout() {
        return Err(pakrat_io::Error::unsupported(0, why));
    }
    let classes = class_order(pkg)
        .into_iter()
        .map(|i| read_class(pkg, i))
        .collect();
    Ok(Headers {
        package: package.to_string(),
        form: Form::of_version(pkg.summary.version),
        classes,
    })
}
