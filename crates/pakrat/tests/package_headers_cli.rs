//! `pakrat package headers` on the corpus: UT99's `Engine.u` (UE1 form) and
//! UT2004's (UE2 form) against facts read by hand from the engine's own
//! public `EngineClasses.h` of each game (UT v432 and UT2004 v3369; see
//! docs/package.md "C++ headers" for the class-by-class agreement), and every
//! UE1/UE2/licensee package of the corpus writing a header.

mod common;

use std::path::Path;

use common::{pakrat, s};

/// Run the command on corpus file `rel` (named `Engine`) with `inc` as the
/// --inc folder; returns the header text.
fn header(rel: &str, inc: Option<&Path>) -> Option<String> {
    let c = pakrat_testkit::corpus_dir()?;
    let out = tempfile::tempdir().unwrap();
    let mut cmd = pakrat();
    cmd.args([
        "package",
        "headers",
        s(&c.join(rel)),
        "--name",
        "Engine",
        "-o",
    ])
    .arg(out.path());
    if let Some(i) = inc {
        cmd.arg("--inc").arg(i);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{rel}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(std::fs::read_to_string(out.path().join("EngineClasses.h")).unwrap())
}

/// The lines of the C++ class `cpp` (from `class ...` to `};`).
fn class_block<'a>(h: &'a str, cpp: &str) -> Vec<&'a str> {
    let start = format!("class ENGINE_API {cpp} : public ");
    let mut lines = h.lines().skip_while(|l| !l.starts_with(&start));
    let mut out: Vec<&str> = Vec::new();
    for l in lines.by_ref() {
        out.push(l);
        if l == "};" {
            break;
        }
    }
    assert!(!out.is_empty(), "class {cpp} not in the header");
    out
}

fn block_of<'a>(h: &'a str, first: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for l in h.lines().skip_while(|l| *l != first) {
        out.push(l);
        if l == "};" {
            break;
        }
    }
    assert!(!out.is_empty(), "{first} not in the header");
    out
}

fn count(block: &[&str], what: &str) -> usize {
    block.iter().filter(|l| l.contains(what)).count()
}

#[test]
fn ut99_engine_in_the_ue1_form() {
    let inc = tempfile::tempdir().unwrap();
    for f in ["AActor.h", "APawn.h", "ULevelSummary.h"] {
        std::fs::write(inc.path().join(f), "").unwrap();
    }
    let Some(h) = header("ue1/Engine.u", Some(inc.path())) else {
        return;
    };
    // The guards and pack lines of UT 4xx.
    assert!(h.contains("#if _MSC_VER\n#pragma pack (push,4)\n#endif"));
    assert!(h.contains("#define AUTOGENERATE_NAME(name) extern ENGINE_API FName ENGINE_##name;"));
    assert!(h.contains("#endif NAMES_ONLY"));
    // The same 50 native classes as UT v432's header.
    assert_eq!(h.matches("\nclass ENGINE_API ").count(), 50);
    // AActor: its first members, bools packed from the first one.
    let actor = class_block(&h, "AActor");
    assert_eq!(
        actor[3..7],
        [
            "    BITFIELD bStatic:1 GCC_PACK(4);",
            "    BITFIELD bHidden:1;",
            "    BITFIELD bNoDelete:1;",
            "    BITFIELD bAnimFinished:1;",
        ]
    );
    // 52 native functions, as in v432; the class-specific header included.
    assert_eq!(count(&actor, "DECLARE_FUNCTION(exec"), 52);
    assert!(actor.contains(&"    DECLARE_CLASS(AActor,UObject,0|CLASS_NativeReplication,Engine)"));
    assert!(actor.contains(&"    #include \"AActor.h\""));
    // A member array is a plain TArray in UE1 (ADecal::SurfList).
    assert!(class_block(&h, "ADecal").contains(&"    TArray<INT> SurfList;"));
    let pawn = class_block(&h, "APawn");
    assert!(pawn.contains(
        &"    DECLARE_CLASS(APawn,AActor,0|CLASS_Config|CLASS_NativeReplication,Engine)"
    ));
    // No class header: NO_DEFAULT_CONSTRUCTOR.
    assert!(class_block(&h, "ALight").contains(&"    NO_DEFAULT_CONSTRUCTOR(ALight)"));
    // An event parameter struct and its thunk.
    assert_eq!(
        block_of(&h, "struct AActor_eventTouch_Parms"),
        [
            "struct AActor_eventTouch_Parms",
            "{",
            "    class AActor* Other;",
            "};"
        ]
    );
    assert!(h.contains(
        "    BITFIELD eventPreTeleport(class ATeleporter* InTeleporter)\n    {\n        \
         AActor_eventPreTeleport_Parms Parms;\n        Parms.InTeleporter=InTeleporter;\n        \
         Parms.ReturnValue=0;\n        ProcessEvent(FindFunctionChecked(ENGINE_PreTeleport),&Parms);\n        \
         return Parms.ReturnValue;\n    }"
    ));
    // Out parameters are copied back.
    assert!(h.contains("        Error=Parms.Error;\n"));
    // An enum with its values and the generated _MAX.
    let phys = block_of(&h, "enum EPhysics");
    assert_eq!(phys[2], "    PHYS_None               =0,");
    assert_eq!(phys[13], "    PHYS_Trailer            =11,");
    assert_eq!(phys[14], "    PHYS_MAX                =12,");
    // Registration: native numbers, -1 for functions without one.
    assert!(h.contains("AUTOGENERATE_FUNCTION(AActor,256,execSleep);"));
    assert!(h.contains("AUTOGENERATE_FUNCTION(AActor,-1,execConsoleCommand);"));
    assert!(h.contains("AUTOGENERATE_NAME(Touch)\n"));
    // UE1 writes no UCONST_ and no native tables.
    assert!(!h.contains("UCONST_") && !h.contains("NATIVES_ONLY"));
}

#[test]
fn ut2004_engine_in_the_ue2_form() {
    let inc = tempfile::tempdir().unwrap();
    std::fs::write(inc.path().join("UInteraction.h"), "").unwrap();
    let Some(h) = header("ue2/ut2004_Engine.u", Some(inc.path())) else {
        return;
    };
    assert!(h.contains("#if SUPPORTS_PRAGMA_PACK\n#pragma pack (push,4)\n#endif"));
    // UE2 marks the first member and the first after a run of bytes.
    let actor = class_block(&h, "AActor");
    assert_eq!(
        actor[3..8],
        [
            "    BYTE LightType GCC_PACK(4);",
            "    BYTE LightEffect;",
            "    BYTE LightHue;",
            "    BYTE LightSaturation;",
            "    FLOAT LightBrightness GCC_PACK(4);",
        ]
    );
    assert!(actor.contains(&"    TArrayNoInit<class AActor*> Touching;"));
    // AInfo's block is line for line the engine's.
    let info = class_block(&h, "AInfo");
    assert_eq!(info[3], "    FStringNoInit RulesGroup GCC_PACK(4);");
    assert_eq!(count(&info, "FStringNoInit"), 7);
    assert!(info.contains(&"    DECLARE_CLASS(AInfo,AActor,0,Engine)"));
    // UInteraction: 4 natives, the --inc header after NO_DEFAULT_CONSTRUCTOR.
    let inter = class_block(&h, "UInteraction");
    assert_eq!(count(&inter, "DECLARE_FUNCTION(exec"), 4);
    let n = inter.len();
    assert_eq!(
        inter[n - 4..],
        [
            "    DECLARE_CLASS(UInteraction,UInteractions,0,Engine)",
            "    NO_DEFAULT_CONSTRUCTOR(UInteraction)",
            "    #include \"UInteraction.h\"",
            "};"
        ]
    );
    assert!(class_block(&h, "UInteractionMaster")
        .contains(&"    DECLARE_CLASS(UInteractionMaster,UInteractions,0|CLASS_Transient,Engine)"));
    // Constants, an out parameter, probe guards, bool parameters.
    assert!(h.contains("#define UCONST_MINFLOORZ 0.7\n#define UCONST_MAXSTEPHEIGHT 35.0\n"));
    assert_eq!(
        block_of(&h, "struct AMutator_eventOverrideDownload_Parms")[2..7],
        [
            "    FString PlayerIP;",
            "    FString PlayerID;",
            "    FString PlayerURL;",
            "    FString RedirectURL;",
            "    BITFIELD ReturnValue;"
        ]
    );
    assert!(h.contains(
        "        AActor_eventTouch_Parms Parms;\n        if(IsProbing(NAME_Touch)) {\n        \
         Parms.Other=Other;\n        ProcessEvent(FindFunctionChecked(ENGINE_Touch),&Parms);\n        }\n"
    ));
    assert!(h.contains("        Parms.bNoOverride=((bNoOverride) ? FIRST_BITFIELD : 0);\n"));
    let csg = block_of(&h, "enum ECsgOper");
    assert_eq!(csg[2..8].join("\n").matches('=').count(), 6);
    assert_eq!(csg[7], "    CSG_MAX                 =5,");
    // Sorted names; the native tables of UE2.
    let names: Vec<&str> = h
        .lines()
        .filter_map(|l| l.strip_prefix("AUTOGENERATE_NAME(")?.strip_suffix(')'))
        .collect();
    assert!(names.contains(&"AcceptPlayInfoProperty") && names.contains(&"Touch"));
    assert!(names.is_sorted_by_key(|n| n.to_ascii_lowercase()));
    assert!(h.contains("NATIVE_INFO(UInteraction) GEngineUInteractionNatives[] = \n{ \n"));
    assert!(h.contains("IMPLEMENT_NATIVE_HANDLER(Engine,UInteraction);"));
    assert!(h.contains("VERIFY_CLASS_SIZE_NODIE(AActor)"));
    // noexport native classes: registered, size-checked, no C++ class.
    assert!(h.contains("DECLARE_NATIVE_TYPE(Engine,UCanvas);"));
    assert!(h.contains("VERIFY_CLASS_SIZE_NODIE(UEngine)"));
    assert!(!h.contains("class ENGINE_API UEngine "));
    // Delegates (their property is already `__X__Delegate`), pointers.
    let tag = class_block(&h, "UStreamTag");
    assert!(tag.contains(&"    PTRINT NativeID3Tag[2];"));
    assert!(tag.contains(&"    FScriptDelegate __OnRefresh__Delegate;"));
    assert!(tag.contains(&"        ProcessDelegate(ENGINE_OnRefresh,&__OnRefresh__Delegate,NULL);"));
    // The config name is not written (no StaticConfigName), only the flag.
    assert!(!h.contains("StaticConfigName"));
    assert!(class_block(&h, "UPlayerInput").contains(
        &"    DECLARE_CLASS(UPlayerInput,UObject,0|CLASS_Transient|CLASS_Config,Engine)"
    ));
}

/// Every package of the corpus's UE1, UE2 and licensee folders writes a
/// header; only the layouts pakrat does not decode are refused (tables
/// only) or name the fields they could not read.
#[test]
fn every_corpus_package_writes_a_header() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // Fields of licensee layouts not decoded (exit 1, header written).
    let partial = ["dnf2011_dnModIce.u", "swat4_Core.u"];
    let out = tempfile::tempdir().unwrap();
    let mut written = 0;
    for dir in ["ue1", "ue2", "licensee"] {
        let mut files: Vec<_> = std::fs::read_dir(c.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let o = pakrat()
                .args(["package", "headers", s(&f), "--name", "P", "--force", "-o"])
                .arg(out.path())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            match o.status.code() {
                Some(0) => written += 1,
                Some(1) if partial.contains(&name.as_str()) => {
                    assert!(err.contains("field not read"), "{name}: {err}");
                    written += 1;
                }
                Some(2) => assert!(
                    name.starts_with("FUZZ_")
                        || err.contains("tables only")
                        || err.contains("a UE1/UE2 package"),
                    "{name}: {err}"
                ),
                code => panic!("{name}: exit {code:?}: {err}"),
            }
        }
    }
    assert!(written > 100, "only {written} headers written");
}
