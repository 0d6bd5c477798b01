//! The Control Rig fixture (`/Game/Fixtures/ControlRig/CR_Fixture`, zen
//! packages of the UE 5.8 and 6.0 IoStore containers, tagged and
//! unversioned): its `RigHierarchy` and `RigVM` exports, which write no
//! property stream, decode as native data to the last byte. The hierarchy
//! holds the skeleton's bones Root, Joint_1, Joint_2 with parents None,
//! Root, Joint_1 (as CUE4Parse's fixture test `ControlRigContainsCookedHierarchy`
//! says); the VM's bytecode is one `Exit`. The package is not in the
//! legacy paks. An unversioned UE 5.8 package does not say its release:
//! it is opened both with the release given and without (the RigVM
//! version is then found by trying the releases'). Mutated, the two
//! exports decode or fail with an error: never a panic, hang or runaway
//! allocation (the legacy paks `props_robust` mutates do not hold them).

use std::path::Path;
use std::time::Duration;

use pakrat_asset::legacy::Layout;
use pakrat_asset::props::{
    decode_export, open, Asset, ExportInfo, ExportProps, NoSchemas, Property, Value,
};
use pakrat_asset::zen::load_script_objects;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_testkit::corpus_dir;
use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const CLASSES: [&str; 2] = ["/Script/ControlRig.RigHierarchy", "/Script/RigVM.RigVM"];

const CR: &str = "/Game/Fixtures/ControlRig/CR_Fixture";

fn get<'v>(v: &'v Value, path: &str) -> &'v Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Struct(fields) => {
                &fields
                    .iter()
                    .find(|p| p.name == part)
                    .unwrap_or_else(|| panic!("no field {part} in {cur:?}"))
                    .value
            }
            Value::Array(items) => &items[part.parse::<usize>().expect("an index")],
            other => panic!("{part}: not a struct or array: {other:?}"),
        };
    }
    cur
}

fn native(p: &ExportProps) -> Value {
    Value::Struct(p.native.clone())
}

fn name(v: &Value) -> &str {
    match v {
        Value::Name(n) => n,
        other => panic!("not a name: {other:?}"),
    }
}

/// CR_Fixture of one variant.
fn open_cr(corpus: &Path, v: &str, mode: &str, engine: Option<Layout>) -> open::Opened {
    let dir = corpus.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
    let c = Container::open(
        dir.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(dir.join("global.utoc"), &KeyRing::default()).unwrap();
    let script = load_script_objects(&global).unwrap();
    open::open_in_container(&c, Some(&script), CR, engine).unwrap()
}

/// The hierarchy and VM exports of CR_Fixture, decoded.
fn decode(
    corpus: &Path,
    v: &str,
    mode: &str,
    engine: Option<Layout>,
) -> (ExportProps, ExportProps) {
    let o = open_cr(corpus, v, mode, engine);
    let a = o.asset();
    let find = |class: &str| {
        let i = a
            .exports
            .iter()
            .position(|e| e.class == class)
            .unwrap_or_else(|| panic!("{v} {mode}: no {class} export"));
        decode_export(&a, i, &NoSchemas)
    };
    (find(CLASSES[0]), find(CLASSES[1]))
}

fn check(label: &str, h: &ExportProps, vm: &ExportProps, v6: bool) {
    for (what, p) in [("hierarchy", h), ("VM", vm)] {
        assert_eq!(p.error, None, "{label} {what}");
        assert_eq!(p.native_unread, 0, "{label} {what}: bytes left");
        assert!(
            p.properties.is_empty(),
            "{label} {what}: no property stream"
        );
    }
    let n = native(h);
    let version = if v6 { 47 } else { 43 };
    assert_eq!(
        get(&n, "SerializationSettings.ControlRigVersion"),
        &Value::Int(version),
        "{label}"
    );
    let bones: Vec<(&str, &str)> = (0..3)
        .map(|i| {
            let e = get(&n, &format!("Elements.{i}"));
            assert_eq!(
                get(e, "Key.Type"),
                &Value::Enum("ERigElementType::Bone".into()),
                "{label}"
            );
            (name(get(e, "Key.Name")), name(get(e, "ParentKey.Name")))
        })
        .collect();
    assert_eq!(
        bones,
        [
            ("Root", "None"),
            ("Joint_1", "Root"),
            ("Joint_2", "Joint_1")
        ],
        "{label}"
    );
    let Value::Array(elements) = get(&n, "Elements") else {
        panic!("{label}: elements")
    };
    assert_eq!(elements.len(), 3, "{label}");
    // Joint_1 sits 6.67 units above Root (its initial local transform).
    assert_eq!(
        get(
            &n,
            "Elements.1.PoseStorage.Initial.Local.Transform.Translation.Z"
        ),
        &Value::Float(6.666_666_5),
        "{label}"
    );
    assert_eq!(
        h.native.iter().any(|p| p.name == "ElementsInfo"),
        v6,
        "{label}: element counts only from the topology version (UE 6.0)"
    );

    let n = native(vm);
    assert_eq!(
        get(&n, "CachedVMHash"),
        &Value::UInt(0xDB3A_7B59),
        "{label}"
    );
    let canonical = vm
        .native
        .iter()
        .any(|p: &Property| p.name == "CachedCanonicalVMHash");
    assert_eq!(canonical, v6, "{label}: canonical hash only in UE 6.0");
    let Value::Array(ins) = get(&n, "ByteCodeStorage.Instructions") else {
        panic!("{label}: instructions")
    };
    assert_eq!(ins.len(), 1, "{label}");
    assert_eq!(
        get(&ins[0], "OpCode"),
        &Value::Enum("ERigVMOpCode::Exit".into()),
        "{label}"
    );
    assert_eq!(
        name(get(&n, "ByteCodeStorage.PublicContextAssetPath.AssetName")),
        "ControlRigExecuteContext",
        "{label}"
    );
    let Value::Array(types) = get(&n, "LocalizedRegistry.Types") else {
        panic!("{label}: registry types")
    };
    assert_eq!(types.len(), 29, "{label}");
    assert_eq!(
        name(get(&types[0], "CPPType")),
        "FRigVMExecuteContext",
        "{label}"
    );
}

#[test]
fn control_rig_hierarchy_and_vm_decode_in_every_variant() {
    let Some(corpus) = corpus_dir() else { return };
    for v in ["UE5_8", "UE6_0"] {
        let release = Layout::for_engine(if v == "UE6_0" { "6.0" } else { "5.8" });
        let mut trees = Vec::new();
        for mode in ["Tagged", "Unversioned"] {
            for engine in [release, None] {
                let label = format!("{v} {mode} (release {})", engine.is_some());
                let (h, vm) = decode(&corpus, v, mode, engine);
                check(&label, &h, &vm, v == "UE6_0");
                trees.push((h.native, vm.native));
            }
        }
        // Tagged and unversioned cooks hold the same data.
        assert!(trees.windows(2).all(|w| w[0] == w[1]), "{v}: forms differ");
    }
}

/// The package view without export data, to move into a mutation case.
fn template(a: &Asset<'_>) -> Asset<'static> {
    Asset {
        package: a.package.clone(),
        names: a.names.clone(),
        imports: a.imports.clone(),
        exports: Vec::new(),
        soft_object_paths: a.soft_object_paths.clone(),
        versions: a.versions.clone(),
        unversioned: a.unversioned,
        bulk: a.bulk.clone(),
    }
}

#[test]
fn mutated_control_rig_exports_decode_or_fail_cleanly() {
    let Some(corpus) = corpus_dir() else { return };
    ALLOC.set_limit(256 << 20);
    let (mut cases, mut failed) = (0usize, 0usize);
    for v in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            // Without the release: the versionless RigVM tries them all.
            let o = open_cr(&corpus, v, mode, None);
            let a = o.asset();
            for (k, class) in CLASSES.iter().enumerate() {
                let e = a.exports.iter().find(|e| e.class == *class).unwrap();
                let info: ExportInfo<'static> = ExportInfo {
                    name: e.name.clone(),
                    path: e.path.clone(),
                    class: e.class.clone(),
                    outer: e.outer.clone(),
                    super_struct: e.super_struct.clone(),
                    template: e.template.clone(),
                    object_flags: e.object_flags,
                    offset: e.offset,
                    data: &[],
                };
                let budget = 64 * e.data.len() + (16 << 20);
                for mu in mutations(e.data, 0x41C ^ k as u64, 250) {
                    ALLOC.reset_peak();
                    let (t, info) = (template(&a), info.clone());
                    let r = run_case(mu.data, Duration::from_secs(20), move |d| {
                        let mut a = t;
                        a.exports = vec![ExportInfo { data: d, ..info }];
                        match decode_export(&a, 0, &NoSchemas).error {
                            None => Ok(()),
                            Some(e) => Err(e),
                        }
                    });
                    cases += 1;
                    match r {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => failed += 1,
                        Err(Failure::Panic(p)) => {
                            panic!("{v} {mode} {class} / {}: panic {p}", mu.name)
                        }
                        Err(other) => panic!("{v} {mode} {class} / {}: {other:?}", mu.name),
                    }
                    assert!(
                        ALLOC.peak() <= ALLOC.live() + budget,
                        "{v} {mode} {class} / {}: peak {} over budget",
                        mu.name,
                        ALLOC.peak()
                    );
                }
            }
        }
    }
    assert!(!ALLOC.refused());
    assert_eq!(cases, 2000);
    // The mutations must reach the decoder's checks.
    assert!(
        failed > cases / 2,
        "only {failed} of {cases} mutations gave an export error"
    );
    eprintln!("Control Rig mutations: {cases} cases, {failed} with export errors");
}
