//! Declarations: the class line and its modifiers, constants, enums,
//! structs, variables, functions with their specifiers, parameters and
//! locals, states with their labels, and `defaultproperties`.
//!
//! Flags (UT432 `UnObjBas.h` / `UnClass.h`, UT2004 public headers):
//! class `CLASS_Abstract` 0x1, `CLASS_Config` 0x4, `CLASS_Transient` 0x8,
//! `CLASS_SafeReplace` 0x40, `CLASS_PerObjectConfig` 0x400,
//! `CLASS_NativeReplication` 0x800; `RF_Native` 0x0400_0000 on the export
//! makes the class `native`. Property `CPF_Edit` 0x1, `CPF_Const` 0x2,
//! `CPF_Input` 0x4, `CPF_ExportObject` 0x8, `CPF_OptionalParm` 0x10,
//! `CPF_OutParm` 0x100, `CPF_CoerceParm` 0x800, `CPF_Native` 0x1000,
//! `CPF_Transient` 0x2000, `CPF_Config` 0x4000, `CPF_Localized` 0x8000,
//! `CPF_Travel` 0x10000, `CPF_EditConst` 0x20000, `CPF_GlobalConfig`
//! 0x40000. Function flags: see [`super::natives`] and
//! [`crate::headers::model`].

use std::fmt::Write as _;

use pakrat_io::Result;

use crate::headers::model::{children, read_field, read_prop, FieldKind, Prop, PropKind};
use crate::package::{ObjRef, Target};

use super::natives::{function_info, Natives, OpKind, FUNC_FINAL, FUNC_STATIC};
use super::Ctx;

const RF_NATIVE: u32 = 0x0400_0000;

fn type_name(k: &PropKind) -> String {
    match k {
        PropKind::Byte(Some(e)) => e.clone(),
        PropKind::Byte(None) => "byte".into(),
        PropKind::Int => "int".into(),
        PropKind::Bool => "bool".into(),
        PropKind::Float => "float".into(),
        PropKind::Object(c, _) => c.clone(),
        PropKind::Class(m) => format!("class<{m}>"),
        PropKind::Name => "name".into(),
        PropKind::Str | PropKind::FixedString => "string".into(),
        PropKind::Struct(s) => s.clone(),
        PropKind::Array(k) => format!("array<{}>", type_name(k)),
        PropKind::Delegate => "delegate".into(),
        PropKind::Pointer => "pointer".into(),
        PropKind::Other(c) => c.clone(),
    }
}

fn prop_mods(f: u32) -> String {
    const T: &[(u32, &str)] = &[
        (0x2, "const"),
        (0x4, "input"),
        (0x8, "export"),
        (0x1000, "native"),
        (0x2000, "transient"),
        (0x4000, "config"),
        (0x8000, "localized"),
        (0x10000, "travel"),
        (0x20000, "editconst"),
        (0x40000, "globalconfig"),
    ];
    let mut s = String::new();
    for (bit, w) in T {
        if f & bit != 0 && !(*bit == 0x4000 && f & 0x40000 != 0) {
            s.push_str(w);
            s.push(' ');
        }
    }
    s
}

fn var_line(p: &Prop) -> String {
    let edit = if p.flags & 1 != 0 { "()" } else { "" };
    let dim = if p.array_dim > 1 {
        format!("[{}]", p.array_dim)
    } else {
        String::new()
    };
    format!(
        "var{edit} {}{} {}{dim};",
        prop_mods(p.flags),
        type_name(&p.kind),
        p.name
    )
}

fn class_line(ctx: &Ctx<'_, '_>, class: usize, out: &mut String) {
    let pkg = ctx.pkg;
    let e = &pkg.exports[class];
    let name = pkg.name(e.object_name);
    let _ = write!(out, "class {name}");
    if !e.super_.is_none() {
        let _ = write!(
            out,
            " extends {}",
            pkg.object_name(e.super_).unwrap_or("Object")
        );
    }
    let mut mods = Vec::new();
    if e.flags & RF_NATIVE != 0 {
        mods.push("native".to_string());
    }
    if let Ok(t) = crate::class::read_class_tail(pkg, class) {
        let f = t.class_flags;
        if f & 0x800 != 0 {
            mods.push("nativereplication".into());
        }
        if f & 0x1 != 0 {
            mods.push("abstract".into());
        }
        if f & 0x4 != 0 {
            let c = t.config_name.map(|n| pkg.name(n)).unwrap_or("System");
            mods.push(if c.eq_ignore_ascii_case("System") {
                "config".into()
            } else {
                format!("config({c})")
            });
        }
        if f & 0x8 != 0 {
            mods.push("transient".into());
        }
        if f & 0x40 != 0 {
            mods.push("safereplace".into());
        }
        if f & 0x400 != 0 {
            mods.push("perobjectconfig".into());
        }
        if !t.within.is_none() {
            let w = pkg.object_name(t.within).unwrap_or("Object");
            if !w.eq_ignore_ascii_case("Object") {
                mods.push(format!("within {w}"));
            }
        }
    }
    for m in mods {
        let _ = write!(out, "\n    {m}");
    }
    out.push_str(";\n\n");
}

/// Write the source of class export `class`.
pub fn class_source(ctx: &Ctx<'_, '_>, natives: &dyn Natives, class: usize) -> Result<String> {
    let pkg = ctx.pkg;
    let mut out = String::new();
    class_line(ctx, class, &mut out);
    let fields = children(pkg, class);
    let mut funcs = Vec::new();
    let mut states = Vec::new();
    for &k in &fields {
        let cls = pkg.export_class_name(k).unwrap_or("");
        match cls {
            "Function" => funcs.push(k),
            "State" => states.push(k),
            "Struct" => struct_decl(ctx, k, &mut out),
            _ => match read_field(pkg, k) {
                FieldKind::Prop(p) => {
                    let _ = writeln!(out, "{}", var_line(&p));
                }
                FieldKind::Const(n, v) => {
                    let _ = writeln!(out, "const {n} = {v};");
                }
                FieldKind::Enum(n, v) => {
                    let _ = writeln!(out, "enum {n}\n{{\n    {}\n}};", v.join(",\n    "));
                }
                FieldKind::Unreadable(n, why) => {
                    let _ = writeln!(out, "// {n}: {why}");
                }
                _ => {}
            },
        }
    }
    let repl = super::repl::block(ctx, natives, class, &fields);
    if !repl.is_empty() {
        out.push('\n');
        out.push_str(&repl);
    }
    // Fields are linked newest first: print functions in declaration order.
    for &f in funcs.iter().rev() {
        out.push('\n');
        function(ctx, natives, f, 0, &mut out)?;
    }
    for &s in states.iter().rev() {
        out.push('\n');
        state(ctx, natives, s, &mut out)?;
    }
    defaults(ctx, class, &mut out);
    Ok(out)
}

fn struct_decl(ctx: &Ctx<'_, '_>, k: usize, out: &mut String) {
    let pkg = ctx.pkg;
    let name = pkg.name(pkg.exports[k].object_name);
    let _ = writeln!(out, "struct {name}\n{{");
    let mut props = Vec::new();
    for c in children(pkg, k) {
        if let Ok(p) = read_prop(pkg, c) {
            props.push(p);
        }
    }
    for p in &props {
        let _ = writeln!(out, "    {}", var_line(p));
    }
    out.push_str("};\n");
}

fn pad(n: usize) -> String {
    "    ".repeat(n)
}

/// The head of function export `f`: `simulated function int Foo(int A)`.
fn function_head(ctx: &Ctx<'_, '_>, f: usize, params: &[Prop], ret: Option<&Prop>) -> String {
    let pkg = ctx.pkg;
    let info = function_info(pkg, f);
    let flags = info.as_ref().map_or(0, |i| i.flags);
    let mut s = String::new();
    const T: &[(u32, &str)] = &[
        (0x40000, "private "),
        (0x80000, "protected "),
        (FUNC_STATIC, "static "),
        (FUNC_FINAL, "final "),
        (0x100, "simulated "),
        (0x20, "singular "),
        (0x8, "latent "),
        (0x4, "iterator "),
        (0x200, "exec "),
    ];
    if flags & 0x400 != 0 {
        match info.as_ref().map_or(0, |i| i.native) {
            0 => s.push_str("native "),
            n => {
                let _ = write!(s, "native({n}) ");
            }
        }
    }
    for (bit, w) in T {
        if flags & bit != 0 {
            s.push_str(w);
        }
    }
    let kind = info.as_ref().map_or(OpKind::Call, |i| i.kind);
    let word = match kind {
        OpKind::Binary(p) => format!("operator({p})"),
        OpKind::Pre => "preoperator".into(),
        OpKind::Post => "postoperator".into(),
        OpKind::Call if flags & 0x0010_0000 != 0 => "delegate".into(),
        OpKind::Call if flags & 0x800 != 0 => "event".into(),
        OpKind::Call => "function".into(),
    };
    s.push_str(&word);
    if let Some(r) = ret {
        let _ = write!(s, " {}", type_name(&r.kind));
    }
    let name = match &info {
        Some(i) if i.kind != OpKind::Call => i.friendly.clone(),
        _ => pkg.name(pkg.exports[f].object_name).to_string(),
    };
    let list: Vec<String> = params
        .iter()
        .map(|p| {
            let mut m = String::new();
            if p.flags & 0x10 != 0 {
                m.push_str("optional ");
            }
            if p.flags & 0x100 != 0 {
                m.push_str("out ");
            }
            if p.flags & 0x800 != 0 {
                m.push_str("coerce ");
            }
            format!("{m}{} {}", type_name(&p.kind), p.name)
        })
        .collect();
    let _ = write!(s, " {name}({})", list.join(", "));
    s
}

/// Write function export `f` at indent `ind`.
pub fn function(
    ctx: &Ctx<'_, '_>,
    natives: &dyn Natives,
    f: usize,
    ind: usize,
    out: &mut String,
) -> Result<()> {
    let pkg = ctx.pkg;
    let props: Vec<Prop> = children(pkg, f)
        .into_iter()
        .filter_map(|k| read_prop(pkg, k).ok())
        .collect();
    let ret = props.iter().find(|p| p.flags & 0x400 != 0).cloned();
    let params: Vec<Prop> = props
        .iter()
        .filter(|p| p.flags & 0x80 != 0 && p.flags & 0x400 == 0)
        .cloned()
        .collect();
    let locals: Vec<&Prop> = props.iter().filter(|p| p.flags & 0x80 == 0).collect();
    let head = function_head(ctx, f, &params, ret.as_ref());
    let flags = function_info(pkg, f).map_or(0, |i| i.flags);
    let body = super::body_lines(ctx, natives, f)?;
    // Native functions end with `;`, and so do functions declared without
    // a body (no `FUNC_Defined`, 0x2); others always have a body.
    if (flags & 0x400 != 0 || flags & 0x2 == 0) && body.is_empty() && locals.is_empty() {
        let _ = writeln!(out, "{}{head};", pad(ind));
        return Ok(());
    }
    let _ = writeln!(out, "{}{head}\n{}{{", pad(ind), pad(ind));
    for l in &locals {
        let dim = if l.array_dim > 1 {
            format!("[{}]", l.array_dim)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{}local {} {}{dim};",
            pad(ind + 1),
            type_name(&l.kind),
            l.name
        );
    }
    if !locals.is_empty() && !body.is_empty() {
        out.push('\n');
    }
    for (i, t) in body {
        let _ = writeln!(out, "{}{t}", pad(ind + i));
    }
    let _ = writeln!(out, "{}}}", pad(ind));
    Ok(())
}

fn state(ctx: &Ctx<'_, '_>, natives: &dyn Natives, s: usize, out: &mut String) -> Result<()> {
    let pkg = ctx.pkg;
    let e = &pkg.exports[s];
    let name = pkg.name(e.object_name);
    let ext = match pkg.check_ref(e.super_) {
        Ok(Target::Export(_)) | Ok(Target::Import(_)) => {
            format!(" extends {}", pkg.object_name(e.super_).unwrap_or("?"))
        }
        _ => String::new(),
    };
    let tail = super::state_tail(ctx, natives, s);
    let flags = tail.map_or(0, |t| t.flags);
    let mods: String = [(0x4, "simulated "), (0x2, "auto ")]
        .iter()
        .filter(|(b, _)| flags & b != 0)
        .map(|(_, w)| *w)
        .collect();
    let edit = if flags & 0x1 != 0 { "()" } else { "" };
    let _ = writeln!(out, "{mods}state{edit} {name}{ext}\n{{");
    let funcs: Vec<usize> = children(pkg, s)
        .into_iter()
        .filter(|&k| pkg.export_class_name(k).ok() == Some("Function"))
        .filter(|&f| !super::is_ignore_stub(pkg, f))
        .collect();
    let ignored = super::ignores(ctx, natives, s);
    if !ignored.is_empty() {
        let _ = writeln!(out, "    ignores {};", ignored.join(", "));
    }
    for &f in funcs.iter().rev() {
        function(ctx, natives, f, 1, out)?;
    }
    let body = super::body_lines(ctx, natives, s)?;
    if !body.is_empty() {
        out.push('\n');
        for (i, t) in body {
            let _ = writeln!(out, "{}{t}", pad(i));
        }
    }
    out.push_str("}\n");
    Ok(())
}

fn defaults(ctx: &Ctx<'_, '_>, class: usize, out: &mut String) {
    let pkg = ctx.pkg;
    out.push_str("\ndefaultproperties\n{\n");
    match crate::class::read_class_tail(pkg, class) {
        Ok(t) => {
            for p in &t.defaults {
                let _ = writeln!(out, "    {}", crate::view::property_text(pkg, p));
            }
        }
        Err(e) => {
            let _ = writeln!(out, "    // not decoded: {e}");
        }
    }
    out.push_str("}\n");
    let _ = ObjRef::NONE;
}
