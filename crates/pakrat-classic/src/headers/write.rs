//! The header text, in the UE1 or UE2 form.

use std::fmt::Write as _;

use super::model::{
    Func, Prop, PropKind, CPF_OUT_PARM, CPF_PARM, CPF_RETURN_PARM, FUNC_NATIVE, FUNC_NO_EXPORT,
};
use super::{
    FieldKind, Form, HeaderClass, Headers, CLASS_CONFIG, CLASS_NATIVE_REPLICATION, CLASS_NO_EXPORT,
    CLASS_TRANSIENT,
};

/// What the writer needs besides the model.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Whether a class-specific header (`AActor.h`) exists, by file name:
    /// it is then `#include`d at the end of the class (`--inc DIR`).
    pub has_include: &'a dyn Fn(&str) -> bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            has_include: &|_| false,
        }
    }
}

/// Where a type is written: a class member, an event parameter (struct
/// field) or a thunk argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Member,
    Parm,
}

/// The engine's C++ type of property kind `k` in a class member
/// (`member`) or in a parameter struct, in the header form `form`.
pub fn cpp_type(k: &PropKind, member: bool, form: Form) -> String {
    type_in(k, if member { Ctx::Member } else { Ctx::Parm }, form)
}

fn type_in(k: &PropKind, ctx: Ctx, form: Form) -> String {
    match k {
        PropKind::Byte(_) => "BYTE".into(),
        PropKind::Int => "INT".into(),
        PropKind::Bool => "BITFIELD".into(),
        PropKind::Float => "FLOAT".into(),
        PropKind::Name => "FName".into(),
        PropKind::Str if ctx == Ctx::Member => "FStringNoInit".into(),
        PropKind::Str => "FString".into(),
        PropKind::FixedString => "CHAR".into(),
        PropKind::Object(c, actor) => format!("class {}{c}*", if *actor { 'A' } else { 'U' }),
        PropKind::Class(_) => "class UClass*".into(),
        PropKind::Struct(s) => format!("F{s}"),
        PropKind::Array(inner) => {
            let t = type_in(inner, Ctx::Parm, form);
            // UE1 members are plain `TArray`s (UT432 `ADecal::SurfList`).
            if ctx == Ctx::Member && form == Form::Ue2 {
                format!("TArrayNoInit<{t}>")
            } else {
                format!("TArray<{t}>")
            }
        }
        PropKind::Delegate => "FScriptDelegate".into(),
        // UT2004 writes pointers as PTRINT (pointer-sized); UE1 has none.
        PropKind::Pointer => "PTRINT".into(),
        PropKind::Other(c) => format!("/* {c} */ INT"),
    }
}

/// Kinds that change the packing of the members after them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pack {
    Bool,
    Byte,
    Other,
}

fn pack_of(k: &PropKind) -> Pack {
    match k {
        PropKind::Bool => Pack::Bool,
        PropKind::Byte(_) => Pack::Byte,
        _ => Pack::Other,
    }
}

/// One member line: `    TYPE Name[:1][[N]][ GCC_PACK(4)];`.
fn member_line(p: &Prop, prev: Option<Pack>, form: Form) -> String {
    let now = pack_of(&p.kind);
    let pack = match (form, prev) {
        // UE1 marks the first bool of a run of bools and the first member
        // after one.
        (Form::Ue1, None) => now == Pack::Bool,
        (Form::Ue1, Some(prev)) => (prev == Pack::Bool) != (now == Pack::Bool),
        // UE2 also marks the first member and the first one after a run
        // of bytes.
        (Form::Ue2, None) => true,
        (Form::Ue2, Some(prev)) => prev != now && (now == Pack::Bool || prev != Pack::Other),
    };
    let mut s = format!("    {} ", type_in(&p.kind, Ctx::Member, form));
    // A delegate's property is already named `__X__Delegate`.
    s.push_str(&p.name);
    if p.kind == PropKind::Bool {
        s.push_str(":1");
    } else if p.array_dim > 1 {
        let _ = write!(s, "[{}]", p.array_dim);
    }
    if pack {
        s.push_str(" GCC_PACK(4)");
    }
    s.push_str(";\n");
    s
}

fn parms(f: &Func) -> impl Iterator<Item = &Prop> {
    f.props.iter().filter(|p| p.flags & CPF_PARM != 0)
}

fn is_return(p: &Prop) -> bool {
    p.flags & CPF_RETURN_PARM != 0
}

/// The parameter struct of event `f` of class `c`.
fn parms_struct(out: &mut String, form: Form, c: &HeaderClass, f: &Func) {
    let _ = writeln!(out, "struct {}_event{}_Parms\n{{", c.cpp_name, f.name);
    for p in parms(f) {
        let dim = if p.array_dim > 1 {
            format!("[{}]", p.array_dim)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    {} {}{dim};",
            type_in(&p.kind, Ctx::Parm, form),
            p.name
        );
    }
    out.push_str("};\n");
}

/// An argument of an event thunk.
fn thunk_arg(p: &Prop, form: Form) -> String {
    let t = type_in(&p.kind, Ctx::Parm, form);
    if p.flags & CPF_OUT_PARM != 0 {
        format!("{t}& {}", p.name)
    } else if p.kind == PropKind::Str {
        format!("const {t}& {}", p.name)
    } else {
        format!("{t} {}", p.name)
    }
}

/// Whether the engine zeroes `Parms.ReturnValue` before the call.
fn zeroed(p: &Prop) -> bool {
    !matches!(
        p.kind,
        PropKind::Str | PropKind::Struct(_) | PropKind::Delegate
    )
}

/// UE2's probe names (UT2004 `Core/Inc/UnNames.h`, indices 300-363): an
/// event with one of these names is sent only when the object probes it.
const UE2_PROBES: &[&str] = &[
    "Spawned",
    "Destroyed",
    "GainedChild",
    "LostChild",
    "Probe4",
    "Probe5",
    "Trigger",
    "UnTrigger",
    "Timer",
    "HitWall",
    "Falling",
    "Landed",
    "PhysicsVolumeChange",
    "Touch",
    "UnTouch",
    "Bump",
    "BeginState",
    "EndState",
    "BaseChange",
    "Attach",
    "Detach",
    "ActorEntered",
    "ActorLeaving",
    "ZoneChange",
    "AnimEnd",
    "EndedRotation",
    "InterpolateEnd",
    "EncroachingOn",
    "EncroachedBy",
    "FootZoneChange",
    "HeadVolumeChange",
    "PostTouch",
    "PawnEnteredVolume",
    "MayFall",
    "PushedState",
    "PawnLeavingVolume",
    "Die",
    "Tick",
    "PlayerTick",
    "ModifyVelocity",
    "CheckMovementTransition",
    "SeePlayer",
    "EnemyNotVisible",
    "HearNoise",
    "UpdateEyeHeight",
    "SeeMonster",
    "SeeFriend",
    "SpecialHandling",
    "BotDesireability",
    "NotifyBump",
    "NotifyPhysicsVolumeChange",
    "AIHearSound",
    "NotifyHeadVolumeChange",
    "NotifyLanded",
    "NotifyHitWall",
    "PostNetReceive",
    "PreBeginPlay",
    "BeginPlay",
    "PostBeginPlay",
    "Probe58",
    "PhysicsChangedFor",
    "ActorEnteredVolume",
    "ActorLeavingVolume",
    "PrepareForMove",
];

/// The `eventX(...)` thunk of event `f`, or the `delegateX(...)` one of
/// delegate `f` when `delegate`.
fn thunk(out: &mut String, form: Form, pkg: &str, c: &HeaderClass, f: &Func, delegate: bool) {
    let ret = parms(f).find(|p| is_return(p));
    let args: Vec<&Prop> = parms(f).filter(|p| !is_return(p)).collect();
    let rt = ret.map_or("void".to_string(), |p| type_in(&p.kind, Ctx::Parm, form));
    let list: Vec<String> = args.iter().map(|p| thunk_arg(p, form)).collect();
    let kind = if delegate { "delegate" } else { "event" };
    let _ = writeln!(
        out,
        "    {rt} {kind}{}({})\n    {{",
        f.name,
        list.join(", ")
    );
    let has_parms = parms(f).next().is_some();
    if has_parms {
        let _ = writeln!(out, "        {}_event{}_Parms Parms;", c.cpp_name, f.name);
    }
    let zero = ret.filter(|p| zeroed(p)).is_some();
    if zero && form == Form::Ue2 {
        out.push_str("        Parms.ReturnValue=0;\n");
    }
    let probe = !delegate
        && form == Form::Ue2
        && UE2_PROBES.iter().any(|n| n.eq_ignore_ascii_case(&f.name));
    if probe {
        let _ = writeln!(out, "        if(IsProbing(NAME_{})) {{", f.name);
    }
    for p in &args {
        if form == Form::Ue2 && p.kind == PropKind::Bool {
            let _ = writeln!(
                out,
                "        Parms.{0}=(({0}) ? FIRST_BITFIELD : 0);",
                p.name
            );
        } else {
            let _ = writeln!(out, "        Parms.{0}={0};", p.name);
        }
    }
    if zero && form == Form::Ue1 {
        out.push_str("        Parms.ReturnValue=0;\n");
    }
    let arg = if has_parms { "&Parms" } else { "NULL" };
    if delegate {
        let _ = writeln!(
            out,
            "        ProcessDelegate({pkg}_{0},&__{0}__Delegate,{arg});",
            f.name
        );
    } else {
        let _ = writeln!(
            out,
            "        ProcessEvent(FindFunctionChecked({pkg}_{}),{arg});",
            f.name
        );
    }
    if probe {
        out.push_str("        }\n");
    }
    for p in args.iter().filter(|p| p.flags & CPF_OUT_PARM != 0) {
        let _ = writeln!(out, "        {0}=Parms.{0};", p.name);
    }
    if ret.is_some() {
        out.push_str("        return Parms.ReturnValue;\n");
    }
    out.push_str("    }\n");
}

fn enum_block(out: &mut String, name: &str, values: &[String]) {
    let _ = writeln!(out, "enum {name}\n{{");
    for (i, v) in values.iter().enumerate() {
        let _ = writeln!(out, "    {v:<24}={i},");
    }
    // The engine adds `<prefix>_MAX` (the prefix of the first value).
    let prefix = values
        .first()
        .and_then(|v| v.split_once('_').map(|(p, _)| p.to_string()))
        .unwrap_or_else(|| name.to_string());
    let _ = writeln!(out, "    {:<24}={},", format!("{prefix}_MAX"), values.len());
    out.push_str("};\n");
}

fn flags_text(c: &HeaderClass) -> String {
    let f = c.class_flags.unwrap_or(0);
    let mut s = "0".to_string();
    for (bit, name) in [
        (CLASS_TRANSIENT, "CLASS_Transient"),
        (CLASS_CONFIG, "CLASS_Config"),
        (CLASS_NATIVE_REPLICATION, "CLASS_NativeReplication"),
    ] {
        if f & bit != 0 {
            let _ = write!(s, "|{name}");
        }
    }
    s
}

/// Whether class `c` gets a C++ class in the header (native, not `noexport`).
pub fn exported(c: &HeaderClass) -> bool {
    c.native && c.class_flags.unwrap_or(0) & CLASS_NO_EXPORT == 0
}

fn class_block(out: &mut String, h: &Headers, c: &HeaderClass, opts: &Options<'_>) {
    let pkg = h.package.to_ascii_uppercase();
    for f in &c.fields {
        if let FieldKind::Enum(n, v) = f {
            enum_block(out, n, v);
        }
    }
    if h.form == Form::Ue2 {
        for f in &c.fields {
            if let FieldKind::Const(n, v) = f {
                let _ = writeln!(out, "#define UCONST_{n} {}", v.trim());
            }
        }
    }
    out.push('\n');
    for f in c.events().chain(c.delegates()) {
        parms_struct(out, h.form, c, f);
    }
    let _ = writeln!(
        out,
        "class {pkg}_API {} : public {}\n{{\npublic:",
        c.cpp_name, c.super_cpp
    );
    let mut prev = None;
    for f in &c.fields {
        match f {
            FieldKind::Prop(p) => {
                out.push_str(&member_line(p, prev, h.form));
                prev = Some(pack_of(&p.kind));
            }
            // Nothing is left out silently: a field whose data did not
            // parse is named where it stands.
            FieldKind::Unreadable(n, why) => {
                let _ = writeln!(out, "    // {n}: not read ({why})");
            }
            _ => {}
        }
    }
    for f in c.natives() {
        let _ = writeln!(out, "    DECLARE_FUNCTION(exec{});", f.name);
    }
    for f in c.events() {
        thunk(out, h.form, &pkg, c, f, false);
    }
    for f in c.delegates() {
        thunk(out, h.form, &pkg, c, f, true);
    }
    let _ = writeln!(
        out,
        "    DECLARE_CLASS({},{},{},{})",
        c.cpp_name,
        c.super_cpp,
        flags_text(c),
        h.package
    );
    let include = (opts.has_include)(&format!("{}.h", c.cpp_name));
    match h.form {
        Form::Ue1 => {
            if include {
                let _ = writeln!(out, "    #include \"{}.h\"", c.cpp_name);
            } else {
                let _ = writeln!(out, "    NO_DEFAULT_CONSTRUCTOR({})", c.cpp_name);
            }
        }
        Form::Ue2 => {
            // No config name is written (UT2004's header has no
            // StaticConfigName line, even for config(User) classes): only
            // CLASS_Config in the flags.
            if let Some(t) = &c.cpp_text {
                for l in t.lines() {
                    let _ = writeln!(out, "    {}", l.trim_end());
                }
            } else {
                let _ = writeln!(out, "    NO_DEFAULT_CONSTRUCTOR({})", c.cpp_name);
            }
            if include {
                let _ = writeln!(out, "    #include \"{}.h\"", c.cpp_name);
            }
        }
    }
    out.push_str("};\n\n");
}

/// `AUTOGENERATE_NAME` entries: the events and delegates of the exported
/// classes (each once). UE2 sorts them; UE1 listed them in the order the engine first
/// registered the names, which the package does not record: they come in
/// declaration order (each class's chain reversed, classes in header order).
fn event_names(h: &Headers) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in h.classes.iter().filter(|c| exported(c)) {
        let evs: Vec<&Func> = c.events().chain(c.delegates()).collect();
        for f in evs.into_iter().rev() {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(&f.name)) {
                names.push(f.name.clone());
            }
        }
    }
    if h.form == Form::Ue2 {
        names.sort_by_key(|n| n.to_ascii_lowercase());
    }
    names
}

fn native_index(f: &Func) -> i32 {
    if f.flags & FUNC_NATIVE != 0 && f.flags & FUNC_NO_EXPORT == 0 && f.native != 0 {
        i32::from(f.native)
    } else {
        -1
    }
}

/// Whether native class `c` takes part in UE2's native registration: every
/// class with a C++ definition, and `noexport` native classes that have
/// native functions (UT2004 registers `UCanvas`, `ATerrainInfo`...).
fn registered(c: &HeaderClass) -> bool {
    exported(c) || c.native && c.natives().next().is_some()
}

/// UE2's registration block: native types, the registrants macro, the
/// native function tables and the class size checks (every native class).
fn ue2_registration(out: &mut String, h: &Headers) {
    let up = h.package.to_ascii_uppercase();
    let p = &h.package;
    let reg: Vec<&HeaderClass> = h.classes.iter().filter(|c| registered(c)).collect();
    out.push_str("\n#ifdef NATIVE_DEFS_ONLY\n");
    for c in &reg {
        let _ = writeln!(out, "DECLARE_NATIVE_TYPE({p},{});", c.cpp_name);
    }
    let _ = writeln!(out, "\n#define AUTO_INITIALIZE_REGISTRANTS_{up} \\");
    for c in &reg {
        let _ = writeln!(out, "\t{}::StaticClass(); \\", c.cpp_name);
        if c.natives().next().is_some() {
            let _ = writeln!(
                out,
                "\tGNativeLookupFuncs[Lookup++] = &Find{p}{}Native; \\",
                c.cpp_name
            );
        }
    }
    out.push_str("\n#endif // NATIVE_DEFS_ONLY\n\n#ifdef NATIVES_ONLY\n");
    for c in reg.iter().filter(|c| c.natives().next().is_some()) {
        let n = &c.cpp_name;
        let _ = writeln!(out, "NATIVE_INFO({n}) G{p}{n}Natives[] = \n{{ ");
        for f in c.natives() {
            let _ = writeln!(out, "\tMAP_NATIVE({n},exec{})", f.name);
        }
        let _ = writeln!(
            out,
            "\t{{NULL,NULL}}\n}};\nIMPLEMENT_NATIVE_HANDLER({p},{n});\n"
        );
    }
    out.push_str("#endif // NATIVES_ONLY\n\n#ifdef VERIFY_CLASS_SIZES\n");
    for c in h.classes.iter().filter(|c| c.native) {
        let _ = writeln!(out, "VERIFY_CLASS_SIZE_NODIE({})", c.cpp_name);
    }
    out.push_str("#endif // VERIFY_CLASS_SIZES\n");
}

/// Write the header text of `h`.
pub fn render(h: &Headers, opts: &Options<'_>) -> String {
    let up = h.package.to_ascii_uppercase();
    let pack_if = match h.form {
        Form::Ue1 => "#if _MSC_VER",
        Form::Ue2 => "#if SUPPORTS_PRAGMA_PACK",
    };
    let mut out = String::new();
    out.push_str(
        "/*===========================================================================\n    \
         C++ class definitions exported from UnrealScript.\n    \
         This is automatically generated by the tools.\n    \
         DO NOT modify this manually! Edit the corresponding .uc files instead!\n\
         ===========================================================================*/\n",
    );
    let _ = writeln!(out, "{pack_if}\n#pragma pack (push,4)\n#endif\n");
    let _ = writeln!(
        out,
        "#ifndef {up}_API\n#define {up}_API DLL_IMPORT\n#endif\n\n#ifndef NAMES_ONLY\n\
         #define AUTOGENERATE_NAME(name) extern {up}_API FName {up}_##name;\n\
         #define AUTOGENERATE_FUNCTION(cls,idx,name)\n#endif\n"
    );
    for n in event_names(h) {
        let _ = writeln!(out, "AUTOGENERATE_NAME({n})");
    }
    out.push_str("\n#ifndef NAMES_ONLY\n\n");
    for c in h.classes.iter().filter(|c| exported(c)) {
        class_block(&mut out, h, c, opts);
    }
    out.push_str("#endif\n\n");
    let natives: Vec<&HeaderClass> = h
        .classes
        .iter()
        .filter(|c| exported(c) && c.natives().next().is_some())
        .collect();
    for c in &natives {
        for f in c.natives() {
            let _ = writeln!(
                out,
                "AUTOGENERATE_FUNCTION({},{},exec{});",
                c.cpp_name,
                native_index(f),
                f.name
            );
        }
    }
    let endif = match h.form {
        Form::Ue1 => "#endif NAMES_ONLY",
        Form::Ue2 => "#endif",
    };
    let _ = writeln!(
        out,
        "\n#ifndef NAMES_ONLY\n#undef AUTOGENERATE_NAME\n#undef AUTOGENERATE_FUNCTION\n{endif}\n"
    );
    let _ = writeln!(out, "{pack_if}\n#pragma pack (pop)\n#endif");
    if h.form == Form::Ue2 {
        out.push('\n');
        ue2_registration(&mut out, h);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::model::FUNC_EVENT;

    fn prop(name: &str, kind: PropKind, flags: u32) -> FieldKind {
        FieldKind::Prop(Prop {
            name: name.into(),
            array_dim: 1,
            flags,
            kind,
        })
    }

    /// A native class built by hand: the packing markers of each form, an
    /// enum, a constant and an event with a bool and an out parameter.
    fn sample(form: Form) -> Headers {
        let parm = |n: &str, k: PropKind, extra: u32| Prop {
            name: n.into(),
            array_dim: 1,
            flags: CPF_PARM | extra,
            kind: k,
        };
        let ev = Func {
            name: "Touch".into(),
            native: 0,
            overrides: false,
            flags: FUNC_EVENT,
            props: vec![
                parm("bFlag", PropKind::Bool, 0),
                parm("Text", PropKind::Str, CPF_OUT_PARM),
                parm("ReturnValue", PropKind::Int, CPF_RETURN_PARM),
            ],
        };
        let fields = vec![
            FieldKind::Enum("EMode".into(), vec!["MODE_A".into(), "MODE_B".into()]),
            FieldKind::Const("LIMIT".into(), " 5".into()),
            prop("Mode", PropKind::Byte(Some("EMode".into())), 0),
            prop("Count", PropKind::Int, 0),
            prop("bOn", PropKind::Bool, 0),
            prop("bOff", PropKind::Bool, 0),
            prop("Names", PropKind::Array(Box::new(PropKind::Name)), 0),
            FieldKind::Func(ev),
        ];
        Headers {
            package: "Pkg".into(),
            form,
            classes: vec![HeaderClass {
                export: 0,
                name: "Thing".into(),
                cpp_name: "AThing".into(),
                super_cpp: "AActor".into(),
                native: true,
                class_flags: Some(CLASS_CONFIG | 0x20),
                config_name: None,
                fields,
                cpp_text: None,
            }],
        }
    }

    #[test]
    fn ue1_form() {
        let h = render(&sample(Form::Ue1), &Options::default());
        assert!(h.contains(
            "enum EMode\n{\n    MODE_A                  =0,\n    MODE_B                  =1,\n    \
             MODE_MAX                =2,\n};\n"
        ));
        assert!(!h.contains("UCONST_"));
        assert!(h.contains(
            "    BYTE Mode;\n    INT Count;\n    BITFIELD bOn:1 GCC_PACK(4);\n    BITFIELD bOff:1;\n    \
             TArray<FName> Names GCC_PACK(4);\n"
        ));
        assert!(h.contains(
            "        Parms.bFlag=bFlag;\n        Parms.Text=Text;\n        Parms.ReturnValue=0;\n        \
             ProcessEvent(FindFunctionChecked(PKG_Touch),&Parms);\n        Text=Parms.Text;\n"
        ));
        assert!(h.contains("    INT eventTouch(BITFIELD bFlag, FString& Text)\n"));
        assert!(h.contains("    DECLARE_CLASS(AThing,AActor,0|CLASS_Config,Pkg)\n    NO_DEFAULT_CONSTRUCTOR(AThing)\n"));
        assert!(h.contains("AUTOGENERATE_NAME(Touch)\n") && h.contains("#endif NAMES_ONLY"));
    }

    #[test]
    fn ue2_form() {
        let inc = |f: &str| f == "AThing.h";
        let h = render(&sample(Form::Ue2), &Options { has_include: &inc });
        assert!(h.contains("#define UCONST_LIMIT 5\n"));
        assert!(h.contains(
            "    BYTE Mode GCC_PACK(4);\n    INT Count GCC_PACK(4);\n    BITFIELD bOn:1 GCC_PACK(4);\n    \
             BITFIELD bOff:1;\n    TArrayNoInit<FName> Names GCC_PACK(4);\n"
        ));
        assert!(h.contains(
            "        Parms.ReturnValue=0;\n        if(IsProbing(NAME_Touch)) {\n        \
             Parms.bFlag=((bFlag) ? FIRST_BITFIELD : 0);\n"
        ));
        assert!(h.contains("    NO_DEFAULT_CONSTRUCTOR(AThing)\n    #include \"AThing.h\"\n};"));
        assert!(h.contains("DECLARE_NATIVE_TYPE(Pkg,AThing);\n"));
        assert!(h.contains("VERIFY_CLASS_SIZE_NODIE(AThing)\n"));
    }
}
