//! Dynamic arrays whose element type is defined by the class (in the same
//! package, or supplied by a resolver over other packages) decode into
//! typed values, and every typed decode ties out with the tag's size.

use pakrat_classic::arrays::{type_arrays_with, PackageSet};
use pakrat_classic::props::{read_object, Property, Value};
use pakrat_classic::Package;
use pakrat_io::Reader;

/// Check one typed array against its tag: the stored count followed by the
/// element bytes make up exactly the property's size, and the element
/// count equals the stored count. Returns true for a non-empty typed array.
fn check_typed(pkg: &Package<'_>, p: &Property<'_>, what: &str) -> bool {
    let Value::TypedArray { elems, data, .. } = &p.value else {
        return false;
    };
    let end = data.as_ptr() as usize - pkg.data().as_ptr() as usize;
    let count_len = p.size as usize - data.len();
    let mut r = Reader::new(&pkg.data()[end - count_len..end]);
    let count = r.compact("count").unwrap();
    assert_eq!(r.remaining(), 0, "{what}: count field");
    assert_eq!(count as usize, elems.len(), "{what}: element count");
    // Fixed-size elements: the size ties out element by element too.
    let fixed = match elems.first() {
        Some(Value::Int(_) | Value::Float(_)) => Some(4),
        Some(Value::Byte(_) | Value::Bool(_)) => Some(1),
        _ => None,
    };
    if let Some(n) = fixed {
        assert_eq!(data.len(), n * elems.len(), "{what}: fixed-size elements");
    }
    !elems.is_empty()
}

/// The UE1/UE2 script packages of the corpus, or `None` (after the
/// testkit's skip report) without one.
fn script_packages() -> Option<Vec<pakrat_testkit::Entry>> {
    let mut out = Vec::new();
    for kind in ["ue1", "ue2"] {
        out.extend(
            pakrat_testkit::entries(kind)?
                .into_iter()
                .filter(|e| !e.is_negative() && e.local_path.ends_with(".u")),
        );
    }
    Some(out)
}

#[test]
fn arrays_decode_typed_in_script_packages() {
    let Some(entries) = script_packages() else {
        return;
    };
    let (mut typed, mut nonempty, mut raw) = (0usize, 0usize, 0usize);
    for e in &entries {
        let data = std::fs::read(&e.path).unwrap();
        let pkg = Package::parse(&data).unwrap();
        for i in 0..pkg.exports.len() {
            // Known read failures are covered by `corpus_tables.rs`.
            let Ok(o) = read_object(&pkg, i) else {
                continue;
            };
            for p in &o.properties {
                let what = format!("{} {} {}", e.local_path, i, pkg.name(p.name));
                match &p.value {
                    Value::TypedArray { .. } => {
                        typed += 1;
                        nonempty += usize::from(check_typed(&pkg, p, &what));
                    }
                    Value::Array { .. } => raw += 1,
                    _ => {}
                }
            }
        }
    }
    eprintln!("{typed} arrays typed ({nonempty} non-empty), {raw} left raw");
    // Measured: 241 typed (209 non-empty), 645 raw (their classes live
    // in other packages; see `resolver_supplies_engine_classes`).
    assert!(nonempty >= 209 && typed >= 241, "{typed} {nonempty}");
}

/// The default properties of `class` in the corpus file `ue2/<file>`.
fn defaults_text(file: &str, class: &str, prop: &str) -> Option<String> {
    let entries = pakrat_testkit::entries("ue2")?;
    let e = entries
        .iter()
        .find(|e| e.local_path == format!("ue2/{file}"))?;
    let data = std::fs::read(&e.path).unwrap();
    let pkg = Package::parse(&data).unwrap();
    let i = (0..pkg.exports.len())
        .find(|&i| {
            pkg.export_class_name(i).unwrap() == "Class" && pkg.export_path(i).unwrap() == class
        })
        .unwrap();
    let o = read_object(&pkg, i).unwrap();
    let p = o.get(&pkg, prop).unwrap();
    assert!(check_typed(&pkg, p, prop), "{file} {class}.{prop} typed");
    Some(pakrat_classic::view::property_text(&pkg, p))
}

#[test]
fn known_typed_array_values() {
    // defaultproperties of XGame.UT2K4GameProfile: LadderProgress(0)=1, the rest -1.
    let Some(t) = defaults_text("XGame.u", "UT2K4GameProfile", "LadderProgress") else {
        return;
    };
    assert_eq!(t, "LadderProgress=[1,-1,-1,-1,-1,-1,-1]");
    // Engine.AccessControl: IPPolicies(0)="ACCEPT;*".
    let t = defaults_text("ut2004_Engine.u", "AccessControl", "IPPolicies").unwrap();
    assert_eq!(t, r#"IPPolicies=["ACCEPT;*"]"#);
    // Engine.VoiceChatReplicationInfo: an array of strings.
    let t = defaults_text(
        "ut2004_Engine.u",
        "VoiceChatReplicationInfo",
        "VoIPLANCodecs",
    )
    .unwrap();
    assert_eq!(t, r#"VoIPLANCodecs=["CODEC_48NB","CODEC_96WB"]"#);
}

#[test]
fn resolver_supplies_engine_classes() {
    let Some(entries) = pakrat_testkit::entries("ue2") else {
        return;
    };
    let read = |name: &str| {
        let e = entries
            .iter()
            .find(|e| e.local_path == format!("ue2/{name}"))
            .unwrap();
        std::fs::read(&e.path).unwrap()
    };
    let (core, engine, xgame) = (
        read("ut2004_Core.u"),
        read("ut2004_Engine.u"),
        read("XGame.u"),
    );
    let (core, engine, xgame) = (
        Package::parse(&core).unwrap(),
        Package::parse(&engine).unwrap(),
        Package::parse(&xgame).unwrap(),
    );
    let mut set = PackageSet::new();
    set.add("Core", &core);
    set.add("Engine", &engine);
    set.add("XGame", &xgame);
    let data = read("MarioMonstersv1.u");
    let pkg = Package::parse(&data).unwrap();
    let (mut before, mut after, mut raw_after) = (0usize, 0usize, 0usize);
    for i in 0..pkg.exports.len() {
        let mut o = read_object(&pkg, i).unwrap();
        before += o
            .properties
            .iter()
            .filter(|p| matches!(p.value, Value::TypedArray { .. }))
            .count();
        type_arrays_with(&pkg, i, &mut o.properties, Some(&set));
        for p in &o.properties {
            match p.value {
                Value::TypedArray { .. } => {
                    check_typed(&pkg, p, pkg.name(p.name));
                    after += 1;
                }
                Value::Array { .. } => raw_after += 1,
                _ => {}
            }
        }
    }
    eprintln!("MarioMonstersv1.u: {before} typed alone, {after} with Core/Engine/XGame, {raw_after} still raw");
    assert!(after > before, "{after} > {before}");
}

/// Every `ArrayProperty` declared directly in a class of a corpus script
/// package yields its element type: the UProperty layout (UField, ArrayDim,
/// PropertyFlags, Category, RepOffset when CPF_Net, Inner) uses each
/// export's data exactly and names a child property.
#[test]
fn every_array_property_definition_parses() {
    use pakrat_classic::arrays::{lookup, Lookup};
    use pakrat_classic::Target;
    let Some(entries) = script_packages() else {
        return;
    };
    let (mut found, mut pointers, mut unknown) = (0usize, 0usize, Vec::new());
    for e in &entries {
        let data = std::fs::read(&e.path).unwrap();
        let pkg = Package::parse(&data).unwrap();
        for (j, x) in pkg.exports.iter().enumerate() {
            if pkg.export_class_name(j).unwrap() != "ArrayProperty" {
                continue;
            }
            let Ok(Target::Export(c)) = pkg.check_ref(x.outer) else {
                continue;
            };
            if !pkg.exports[c].class.is_none() {
                continue; // declared in a function or struct
            }
            match lookup(&pkg, c, pkg.name(x.object_name)) {
                Lookup::Found(_) => found += 1,
                // Native-only arrays of pointers (UT2004 `Actor.Projectors`):
                // no script element type, correctly left unknown.
                Lookup::Unknown
                    if pkg.exports.iter().enumerate().any(|(k, y)| {
                        y.outer == pakrat_classic::ObjRef::export(j)
                            && pkg.export_class_name(k).unwrap() == "PointerProperty"
                    }) =>
                {
                    pointers += 1
                }
                l => unknown.push(format!(
                    "{} {}: {l:?}",
                    e.local_path,
                    pkg.export_path(j).unwrap()
                )),
            }
        }
    }
    eprintln!(
        "{found} array property definitions read, {pointers} arrays of pointers, {} not",
        unknown.len()
    );
    assert!(found >= 575, "{found}");
    assert_eq!(pointers, 3);
    assert!(
        unknown.is_empty(),
        "{}",
        unknown[..unknown.len().min(30)].join("\n")
    );
}
