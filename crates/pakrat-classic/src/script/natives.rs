//! Native functions and operators, by native index and by object, read from
//! the `Function` exports of the package being decompiled and of the
//! packages given beside it (Core, Engine...).
//!
//! A function's tail (after its bytecode) holds `iNative` (u16),
//! `OperPrecedence` (u8) and `FunctionFlags` (u32); before v64 also
//! `ParmsSize` u16 first, `NumParms` u8 before and `ReturnValueOffset` u16
//! after the precedence (UT432 `UnClass.cpp` `UFunction::Serialize`; UELib
//! `UFunction`). An operator's symbol is its `FriendlyName` (`+`, `==`);
//! `FUNC_Operator` with two parameters is infix, with one it is prefix when
//! `FUNC_PreOperator` is set, else postfix.
//!
//! A native index no package given defines may still be named from a
//! built-in table ([`builtin`]) of the game's packages the corpus and most
//! users lack (UT2004 `XInterface`, Deus Ex `Extension`...).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

pub mod builtin;

use crate::headers::model::{
    children, function_tail, struct_header, FieldKind, CPF_PARM, CPF_RETURN_PARM,
};
use crate::package::{ObjRef, Package, Target};

use super::Ctx;

/// `FUNC_Final`.
pub const FUNC_FINAL: u32 = 0x1;
/// `FUNC_PreOperator`.
pub const FUNC_PRE_OPERATOR: u32 = 0x10;
/// `FUNC_Operator`.
pub const FUNC_OPERATOR: u32 = 0x1000;
/// `FUNC_Static`.
pub const FUNC_STATIC: u32 = 0x2000;

/// How a function is written at a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// A plain call `f(a, b)`.
    Call,
    /// An infix operator with its precedence.
    Binary(u8),
    /// A prefix operator (`-a`, `!a`).
    Pre,
    /// A postfix operator (`a++`).
    Post,
}

/// What a call needs to know about a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeInfo {
    /// The name written at a call (an operator's symbol).
    pub friendly: String,
    /// Call, infix, prefix or postfix.
    pub kind: OpKind,
    /// `FunctionFlags`.
    pub flags: u32,
    /// `iNative`.
    pub native: u16,
    /// For each parameter, whether it is `coerce` (its conversion is
    /// implicit at the call).
    pub coerce: Vec<bool>,
    /// For each parameter, its enum when it is a byte with one.
    pub enums: Vec<Option<String>>,
    /// The enum of the return value, when it is a byte with one.
    pub ret: Option<String>,
}

impl NativeInfo {
    /// Whether a `FinalFunction` token for this function is a `Super.` call
    /// (the compiler emits it for final and static functions and for
    /// super calls; anything else reached by a final call is a super call).
    pub fn is_super_call(&self) -> bool {
        self.flags & FUNC_FINAL == 0 && self.kind == OpKind::Call
    }
}

/// Whether a final call to `f`, whose flags are not known (a function of a
/// package not given), is written as a super call: when `f` belongs to
/// another class than the one decompiled. It is one, or a call to a final
/// (or static) function of a class above; `Super.F()` compiles to the same
/// final call to that function then (nothing below can override it),
/// where `F()` for a super call would compile to a virtual call (UE2
/// `UnScrCom.cpp`: `EX_FinalFunction` for `Super.`, final and static
/// functions).
pub fn unknown_is_super(ctx: &Ctx<'_, '_>, f: ObjRef) -> bool {
    match ctx.pkg.check_ref(f) {
        Ok(Target::Import(_)) => true,
        Ok(Target::Export(k)) => {
            let mut o = ctx.pkg.exports[k].outer;
            // A state's function: its class is the state's outer.
            for _ in 0..4 {
                match ctx.pkg.check_ref(o) {
                    Ok(Target::Export(c)) if ctx.pkg.exports[c].class.is_none() => {
                        return c != ctx.class
                    }
                    Ok(Target::Export(c)) => o = ctx.pkg.exports[c].outer,
                    _ => return false,
                }
            }
            false
        }
        _ => false,
    }
}

/// The prefix of a super call to `f`: `Super.` when the nearest
/// definition of `f`'s name above the class's direct super is `f` itself
/// (what `Super.F()` compiles to), else `Super(Class).` naming the class
/// right above the last definition skipped (the source skipped a level:
/// `Super(Class).F()` calls the nearest `F` from `Class` upwards, so any
/// class from there up to `f`'s own compiles the same), or `f`'s own class
/// when the classes between are not all known. `Super.` when the
/// hierarchy is not known (a package not given).
pub fn super_prefix(ctx: &Ctx<'_, '_>, natives: &dyn Natives, f: ObjRef) -> String {
    let pkg = ctx.pkg;
    let plain = || "Super.".to_string();
    let (outer, fname) = match pkg.check_ref(f) {
        Ok(Target::Export(k)) => (pkg.exports[k].outer, pkg.exports[k].object_name),
        Ok(Target::Import(k)) => (pkg.imports[k].outer, pkg.imports[k].object_name),
        _ => return plain(),
    };
    // Functions of states are left as `Super.`.
    match pkg.check_ref(outer) {
        Ok(Target::Export(k)) if !pkg.exports[k].class.is_none() => return plain(),
        Ok(Target::Import(k))
            if !pkg
                .name(pkg.imports[k].class_name)
                .eq_ignore_ascii_case("Class") =>
        {
            return plain()
        }
        _ => {}
    }
    let Ok(owner) = pkg.object_name(outer) else {
        return plain();
    };
    let class = pkg.name(pkg.exports[ctx.class].object_name);
    let Some(sup) = natives.super_of(class) else {
        return plain();
    };
    let f = pkg.name(fname);
    match natives.lookup(&sup, f) {
        Some((found, _)) if !found.eq_ignore_ascii_case(owner) => {
            // The definitions skipped: from the nearest one up to `owner`'s;
            // the class right above the last of them is the nearest that
            // finds `owner`'s (any class from there up to `owner` compiles
            // the same; the corpus's sources name this one more often).
            let mut last = found;
            for _ in 0..64 {
                let Some(up) = natives.super_of(&last) else {
                    break;
                };
                match natives.lookup(&up, f) {
                    Some((next, _)) if !next.eq_ignore_ascii_case(owner) => last = next,
                    Some(_) => {
                        let name = natives.class_name(&up).unwrap_or(up);
                        return format!("Super({name}).");
                    }
                    None => break,
                }
            }
            format!("Super({owner}).")
        }
        _ => plain(),
    }
}

/// Resolves native indices and function objects.
pub trait Natives {
    /// The native function with index `i`.
    fn native(&self, i: u16) -> Option<NativeInfo>;
    /// The function `f` of `pkg` (an export, or an import found in one of
    /// the known packages).
    fn function(&self, pkg: &Package<'_>, f: ObjRef) -> Option<NativeInfo>;
    /// The enum of byte property `p` of `pkg`, when it has one.
    fn prop_enum(&self, pkg: &Package<'_>, p: ObjRef) -> Option<String>;
    /// The one int constant class `class` itself declares with value `v`
    /// (`None` when there is none, or more than one).
    fn class_const(&self, _class: &str, _v: i32) -> Option<String> {
        None
    }
    /// The name of value `v` of enum `name`.
    fn enum_value(&self, name: &str, v: u8) -> Option<String>;
    /// The direct super class of class `name` (lower-case), when known.
    fn super_of(&self, _name: &str) -> Option<String> {
        None
    }
    /// Class `name` (any case) as its package declares it, when known.
    fn class_name(&self, _name: &str) -> Option<String> {
        None
    }
    /// Function `f` looked up from class `class` upwards: the (lower-case)
    /// class that defines it and its info.
    fn lookup(&self, _class: &str, _f: &str) -> Option<(String, NativeInfo)> {
        None
    }
    /// A function known only by name (a virtual call through a context
    /// whose class is not known): its info when every function of that
    /// name in the packages given has the same parameters' `coerce` flags
    /// and enums.
    fn by_name(&self, _f: &str) -> Option<NativeInfo> {
        None
    }
    /// Whether class `class` or a class above it has a property `p`.
    fn has_property(&self, _class: &str, _p: &str) -> bool {
        false
    }
    /// How many objects (not classes nor fields) named `name` package
    /// `package` holds, at any depth of groups; `None` when the package
    /// was not given by name ([`NativeTable::add_named`]).
    fn objects_in(&self, _package: &str, _name: &str) -> Option<usize> {
        None
    }
    /// How many objects (not classes nor fields) named `name` all the
    /// packages given hold.
    fn objects_named(&self, _name: &str) -> usize {
        usize::MAX
    }
}

/// Whether export `i` is an object an object literal can name (not a
/// class, a field, a script text or a group).
pub(super) fn is_resource(pkg: &Package<'_>, i: usize) -> bool {
    let c = pkg.export_class_name(i).unwrap_or("Class");
    !(matches!(
        c,
        "Class"
            | "Function"
            | "State"
            | "Const"
            | "Enum"
            | "Struct"
            | "ScriptStruct"
            | "TextBuffer"
    ) || c.ends_with("Property"))
}

fn byte_enum(pkg: &Package<'_>, k: usize) -> Option<String> {
    if pkg.export_class_name(k).ok()? != "ByteProperty" {
        return None;
    }
    match crate::headers::model::read_prop(pkg, k).ok()?.kind {
        crate::headers::model::PropKind::Byte(e) => e,
        _ => None,
    }
}

/// The key of a function's outer `o` (lower-case): its class, or for a
/// state's function `Class.State` (a state may be named as a class is,
/// `Pickup`'s `auto state Pickup`: its functions are not the class's).
fn function_owner(pkg: &Package<'_>, o: ObjRef) -> String {
    let (class, outer) = match pkg.check_ref(o) {
        Ok(Target::Export(k)) => (pkg.export_class_name(k).unwrap_or(""), pkg.exports[k].outer),
        Ok(Target::Import(k)) => (pkg.name(pkg.imports[k].class_name), pkg.imports[k].outer),
        _ => return String::new(),
    };
    if class == "State" {
        format!("{}.{}", outer_name(pkg, outer), outer_name(pkg, o))
    } else {
        outer_name(pkg, o)
    }
}

fn outer_name(pkg: &Package<'_>, o: ObjRef) -> String {
    pkg.object_name(o).unwrap_or("").to_lowercase()
}

/// Read what a call needs from function export `i`.
pub fn function_info(pkg: &Package<'_>, i: usize) -> Option<NativeInfo> {
    let h = struct_header(pkg, i)?;
    let (native, flags) = function_tail(pkg, i)?;
    let rest = h.rest.rest();
    let net = if flags & crate::headers::model::FUNC_NET != 0 {
        2
    } else {
        0
    };
    let old = pkg.summary.version <= 63;
    let fixed = if old { 12 } else { 7 };
    let start = rest.len().checked_sub(net + fixed)?;
    let prec = *rest.get(start + if old { 5 } else { 2 })?;
    let friendly = pkg.name(h.friendly_name).to_string();
    let all: Vec<crate::headers::model::Prop> = children(pkg, i)
        .into_iter()
        .filter_map(|k| crate::headers::model::read_prop(pkg, k).ok())
        .collect();
    let ret = all
        .iter()
        .find(|p| p.flags & CPF_RETURN_PARM != 0)
        .and_then(|p| match &p.kind {
            crate::headers::model::PropKind::Byte(e) => e.clone(),
            _ => None,
        });
    let parms: Vec<crate::headers::model::Prop> = all
        .into_iter()
        .filter(|p| p.flags & CPF_PARM != 0 && p.flags & CPF_RETURN_PARM == 0)
        .collect();
    let coerce: Vec<bool> = parms.iter().map(|p| p.flags & 0x800 != 0).collect();
    let enums: Vec<Option<String>> = parms
        .iter()
        .map(|p| match &p.kind {
            crate::headers::model::PropKind::Byte(e) => e.clone(),
            _ => None,
        })
        .collect();
    let kind = if flags & FUNC_OPERATOR != 0 {
        match parms.len() {
            2 => OpKind::Binary(prec),
            1 if flags & FUNC_PRE_OPERATOR != 0 => OpKind::Pre,
            1 => OpKind::Post,
            _ => OpKind::Call,
        }
    } else {
        OpKind::Call
    };
    Some(NativeInfo {
        friendly,
        kind,
        flags,
        native,
        coerce,
        enums,
        ret,
    })
}

/// The natives of a set of packages: the package decompiled first, then the
/// others in the order given.
#[derive(Debug, Default)]
pub struct NativeTable {
    by_index: HashMap<u16, NativeInfo>,
    /// (class, function) lower-case → info, for imported functions.
    by_path: HashMap<(String, String), NativeInfo>,
    /// (owner, property) lower-case → enum name, for imported properties.
    prop_enums: HashMap<(String, String), String>,
    /// Enum name lower-case → value names.
    enums: HashMap<String, Vec<String>>,
    /// Class lower-case → its super class lower-case.
    supers: HashMap<String, String>,
    /// Every class of the packages added, lower-case → its name as its
    /// package declares it: the classes the built-in type tables are not
    /// asked about.
    classes: HashMap<String, String>,
    /// Every class and struct holding a property in the packages added
    /// (lower-case): the same for properties.
    owners: std::collections::HashSet<String>,
    /// Class lower-case → its int constants (name, value).
    consts: HashMap<String, Vec<(String, i32)>>,
    /// Class lower-case → the number of the addition that gave its
    /// constants.
    const_classes: HashMap<String, usize>,
    /// How many packages were added.
    added: usize,
    /// (class, property) lower-case, for every property of a class.
    props: std::collections::HashSet<(String, String)>,
    /// Function name lower-case → its info, `None` when definitions of
    /// that name disagree on parameters.
    names: HashMap<String, Option<NativeInfo>>,
    /// (package, object) lower-case → how many objects of that name the
    /// package holds (packages given by name).
    objects: HashMap<(String, String), usize>,
    /// Object name lower-case → how many objects of that name all the
    /// packages hold.
    object_names: HashMap<String, usize>,
    /// The packages given by name (lower-case).
    named: std::collections::HashSet<String>,
    /// The version and licensee of the first package added (the one
    /// decompiled): which built-in tables may apply.
    generation: Option<(u16, u16)>,
    /// The packages the packages added import (lower-case): which built-in
    /// tables may apply.
    referenced: std::collections::HashSet<String>,
    /// One bit per built-in table ([`builtin::BUILTINS`]) a lookup used.
    builtin_used: AtomicU64,
}

/// Whether two functions of the same name take the same kinds of
/// parameters (what a call through an unknown class may rely on).
pub(crate) fn same_params(a: &NativeInfo, b: &NativeInfo) -> bool {
    a.coerce == b.coerce && a.enums == b.enums && a.ret == b.ret && a.kind == b.kind
}

impl NativeTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the functions of `pkg` (earlier additions win), and its objects
    /// under the package name `name` (what object literals are checked
    /// against). A package added twice counts once.
    pub fn add_named(&mut self, pkg: &Package<'_>, name: &str) {
        let first = self.named.insert(name.to_lowercase());
        for (i, e) in pkg.exports.iter().enumerate() {
            if first && is_resource(pkg, i) {
                let n = pkg.name(e.object_name).to_lowercase();
                *self
                    .objects
                    .entry((name.to_lowercase(), n.clone()))
                    .or_default() += 1;
                *self.object_names.entry(n).or_default() += 1;
            }
        }
        self.add(pkg);
    }

    /// Const export `i` of `pkg`, when a class holds it (the first
    /// package defining the class wins).
    fn add_const(&mut self, pkg: &Package<'_>, i: usize) {
        let e = &pkg.exports[i];
        let Ok(Target::Export(k)) = pkg.check_ref(e.outer) else {
            return;
        };
        if !pkg.exports[k].class.is_none() {
            return;
        }
        let FieldKind::Const(name, text) = crate::headers::model::read_field(pkg, i) else {
            return;
        };
        let Some(v) = super::consts::int_value(&text) else {
            return;
        };
        let class = pkg.name(pkg.exports[k].object_name).to_lowercase();
        if self
            .const_classes
            .get(&class)
            .is_some_and(|&p| p != self.added)
        {
            return;
        }
        self.const_classes.insert(class.clone(), self.added);
        self.consts.entry(class).or_default().push((name, v));
    }

    /// Add the functions of `pkg` (earlier additions win).
    pub fn add(&mut self, pkg: &Package<'_>) {
        self.added += 1;
        if self.generation.is_none() {
            self.generation = Some((pkg.summary.version, pkg.summary.licensee));
        }
        for n in pkg.imported_packages() {
            self.referenced.insert(n.to_lowercase());
        }
        for (i, e) in pkg.exports.iter().enumerate() {
            if e.class.is_none() {
                self.classes
                    .entry(pkg.name(e.object_name).to_lowercase())
                    .or_insert_with(|| pkg.name(e.object_name).to_string());
                if let (false, Ok(sup)) = (e.super_.is_none(), pkg.object_name(e.super_)) {
                    self.supers
                        .entry(pkg.name(e.object_name).to_lowercase())
                        .or_insert_with(|| sup.to_lowercase());
                }
                continue;
            }
            match pkg.export_class_name(i).unwrap_or("") {
                "Function" => {}
                "Const" => {
                    self.add_const(pkg, i);
                    continue;
                }
                "Enum" => {
                    if let Some(en) = crate::enums::read_enum(pkg, i) {
                        self.enums
                            .entry(en.name.to_lowercase())
                            .or_insert(en.values);
                    }
                    continue;
                }
                c if c.ends_with("Property") => {
                    self.owners.insert(outer_name(pkg, e.outer));
                    if let Ok(Target::Export(k)) = pkg.check_ref(e.outer) {
                        if pkg.exports[k].class.is_none() {
                            self.props.insert((
                                pkg.name(pkg.exports[k].object_name).to_lowercase(),
                                pkg.name(e.object_name).to_lowercase(),
                            ));
                        }
                    }
                    if c != "ByteProperty" {
                        continue;
                    }
                    if let Some(en) = byte_enum(pkg, i) {
                        let key = (
                            outer_name(pkg, e.outer),
                            pkg.name(e.object_name).to_lowercase(),
                        );
                        self.prop_enums.entry(key).or_insert(en);
                    }
                    continue;
                }
                _ => continue,
            }
            let Some(info) = function_info(pkg, i) else {
                continue;
            };
            let owner = match pkg.check_ref(e.outer) {
                Ok(Target::Export(_)) => function_owner(pkg, e.outer),
                _ => String::new(),
            };
            let fname = pkg.name(e.object_name).to_lowercase();
            if info.native != 0 {
                self.by_index
                    .entry(info.native)
                    .or_insert_with(|| info.clone());
            }
            match self.names.get_mut(&fname) {
                None => {
                    self.names.insert(fname.clone(), Some(info.clone()));
                }
                Some(slot) => {
                    if slot.as_ref().is_some_and(|s| !same_params(s, &info)) {
                        *slot = None;
                    }
                }
            }
            self.by_path.entry((owner, fname)).or_insert(info);
        }
    }
}

impl NativeTable {
    /// The built-in tables that may name what the packages added do not:
    /// those of the decompiled package's generation whose package, and one
    /// of whose markers, the packages added reference.
    fn builtins(&self) -> impl Iterator<Item = (usize, &'static builtin::Builtin)> + '_ {
        let gen = self.generation;
        builtin::BUILTINS.iter().enumerate().filter(move |(_, b)| {
            let refs = |n: &str| self.referenced.contains(&n.to_lowercase());
            gen.is_some_and(|(v, l)| (b.generation)(v, l))
                && refs(b.package)
                && b.markers.iter().any(|m| refs(m))
        })
    }

    /// The first applicable built-in table that `get` finds something in
    /// (recorded as used).
    fn in_builtins<T>(&self, get: impl Fn(&'static builtin::Parsed) -> Option<T>) -> Option<T> {
        self.in_builtins_if(|_| true, get)
    }

    /// The same among the applicable tables `which` keeps.
    fn in_builtins_if<T>(
        &self,
        which: impl Fn(&builtin::Builtin) -> bool,
        get: impl Fn(&'static builtin::Parsed) -> Option<T>,
    ) -> Option<T> {
        self.builtins()
            .filter(|(_, b)| which(b))
            .find_map(|(k, b)| {
                let found = get(b.parsed())?;
                self.builtin_used.fetch_or(1u64 << k, Ordering::Relaxed);
                Some(found)
            })
    }

    /// The built-in tables a lookup has used so far (see [`builtin`]): what
    /// a caller reports once it has decompiled.
    pub fn builtins_used(&self) -> Vec<&'static builtin::Builtin> {
        let used = self.builtin_used.load(Ordering::Relaxed);
        builtin::BUILTINS
            .iter()
            .enumerate()
            .filter(|(k, _)| used & (1u64 << k) != 0)
            .map(|(_, b)| b)
            .collect()
    }
}

impl Natives for NativeTable {
    fn native(&self, i: u16) -> Option<NativeInfo> {
        if let Some(n) = self.by_index.get(&i) {
            return Some(n.clone());
        }
        self.in_builtins(|t| t.by_index.get(&i).cloned())
    }

    fn function(&self, pkg: &Package<'_>, f: ObjRef) -> Option<NativeInfo> {
        match pkg.check_ref(f).ok()? {
            Target::Export(i) => function_info(pkg, i),
            Target::Import(i) => {
                let imp = &pkg.imports[i];
                pkg.object_name(imp.outer).ok()?;
                let owner = function_owner(pkg, imp.outer);
                let name = pkg.name(imp.object_name).to_lowercase();
                let key = (owner, name);
                if let Some(f) = self.by_path.get(&key) {
                    return Some(f.clone());
                }
                // A class of a package given is not taken from a type
                // table (a native table still names its natives, as
                // Deus Ex's additions to Engine's Actor).
                let known = self.classes.contains_key(&key.0);
                self.in_builtins_if(|b| !(known && b.types), |t| t.by_path.get(&key).cloned())
            }
            Target::None => None,
        }
    }

    fn prop_enum(&self, pkg: &Package<'_>, p: ObjRef) -> Option<String> {
        match pkg.check_ref(p).ok()? {
            Target::Export(k) => byte_enum(pkg, k),
            Target::Import(k) => {
                let imp = &pkg.imports[k];
                let key = (
                    outer_name(pkg, imp.outer),
                    pkg.name(imp.object_name).to_lowercase(),
                );
                if self.owners.contains(&key.0) {
                    return self.prop_enums.get(&key).cloned();
                }
                self.in_builtins(|t| t.props.get(&key).cloned().flatten())
            }
            Target::None => None,
        }
    }

    fn class_const(&self, class: &str, v: i32) -> Option<String> {
        let mut found = self
            .consts
            .get(&class.to_lowercase())?
            .iter()
            .filter(|(_, x)| *x == v);
        let (name, _) = found.next()?;
        found.next().is_none().then(|| name.clone())
    }

    fn enum_value(&self, name: &str, v: u8) -> Option<String> {
        let name = name.to_lowercase();
        match self.enums.get(&name) {
            Some(values) => values.get(usize::from(v)).cloned(),
            None => self.in_builtins(|t| t.enums.get(&name)?.get(usize::from(v)).cloned()),
        }
    }

    fn super_of(&self, name: &str) -> Option<String> {
        let name = name.to_lowercase();
        if self.classes.contains_key(&name) {
            return self.supers.get(&name).cloned();
        }
        self.in_builtins(|t| t.supers.get(&name).cloned())
    }

    fn class_name(&self, name: &str) -> Option<String> {
        let name = name.to_lowercase();
        if let Some(n) = self.classes.get(&name) {
            return Some(n.clone());
        }
        self.in_builtins(|t| t.class_names.get(&name).cloned())
    }

    fn lookup(&self, class: &str, f: &str) -> Option<(String, NativeInfo)> {
        let f = f.to_lowercase();
        let mut c = class.to_lowercase();
        for _ in 0..crate::arrays::MAX_SUPER_DEPTH {
            let key = (c, f.clone());
            let found = if self.classes.contains_key(&key.0) {
                self.by_path.get(&key).cloned()
            } else {
                self.in_builtins(|t| t.by_path.get(&key).cloned())
            };
            if let Some(i) = found {
                return Some((key.0, i));
            }
            c = self.super_of(&key.0)?;
        }
        None
    }

    fn by_name(&self, f: &str) -> Option<NativeInfo> {
        let f = f.to_lowercase();
        if let Some(found) = self.names.get(&f) {
            return found.clone();
        }
        // No package given has a function of that name: the applicable
        // built-in tables' functions of that name, when all agree.
        let mut found: Option<(usize, NativeInfo)> = None;
        for (k, b) in self.builtins() {
            match b.parsed().names.get(&f) {
                None => {}
                Some(None) => return None,
                Some(Some(i)) => match &found {
                    Some((_, g)) if !same_params(g, i) => return None,
                    Some(_) => {}
                    None => found = Some((k, i.clone())),
                },
            }
        }
        let (k, info) = found?;
        self.builtin_used.fetch_or(1u64 << k, Ordering::Relaxed);
        Some(info)
    }

    fn objects_in(&self, package: &str, name: &str) -> Option<usize> {
        let package = package.to_lowercase();
        if !self.named.contains(&package) {
            return None;
        }
        Some(
            self.objects
                .get(&(package, name.to_lowercase()))
                .copied()
                .unwrap_or(0),
        )
    }

    fn objects_named(&self, name: &str) -> usize {
        self.object_names
            .get(&name.to_lowercase())
            .copied()
            .unwrap_or(0)
    }

    fn has_property(&self, class: &str, p: &str) -> bool {
        let p = p.to_lowercase();
        let mut c = class.to_lowercase();
        for _ in 0..crate::arrays::MAX_SUPER_DEPTH {
            let key = (c, p.clone());
            let found = if self.classes.contains_key(&key.0) {
                self.props.contains(&key)
            } else {
                self.in_builtins(|t| t.props.contains_key(&key).then_some(()))
                    .is_some()
            };
            if found {
                return true;
            }
            match self.super_of(&key.0) {
                Some(s) => c = s,
                None => return false,
            }
        }
        false
    }
}
