//! Every command example of `README.md` and `docs/*.md`, run against the
//! corpus with the built `pakrat`, so the docs cannot drift.
//!
//! Which fenced blocks are command examples:
//! - a block with lines starting `$ ` is a session: each `$ ` line (joined
//!   with the following lines while it ends in `\`) is a command, the lines
//!   up to the next `$ ` its expected output (stdout and stderr together);
//! - a block without `$ ` lines, tagged `sh`, `console`, `shell` or `bash`,
//!   or with a line starting `pakrat ` or `cargo `: each line that is not a
//!   comment is a command, expected to exit 0, its output not compared.
//!
//! Every command example runs, unless an HTML comment right above its fence
//! says why not: `<!-- doc-test: not run: REASON -->` for the whole block,
//! `<!-- doc-test: not run "TEXT": REASON -->` for the commands containing
//! TEXT (which must match one). Blocks that are not command examples (output
//! listings, Rust code) are not run.
//!
//! Expected output: a line `...` or `…` stands for any number of lines;
//! `[..]`, `...` or `…` inside a line for any text; a last line `(exit N)`
//! sets the expected exit code (0 otherwise); `in 0.01s` timings are masked.
//! A command with no expected lines has only its exit code checked.
//!
//! Each document runs as one `sh` script (commands share the folder and the
//! shell variables) in a scratch folder holding links to the corpus's top
//! folders (`ue1/`, `iostore/`, ...), plus the few files a document names
//! without their folder (`SETUP` below, copies where a command writes), and
//! for the documents that use it a small UT99 game folder `UT/` built by
//! [`ut_tree`]. `cargo run --release -q -- ARGS` in a block means `pakrat
//! ARGS`. Absolute paths into the scratch folder are compared as paths
//! relative to it. `DOC_TEST_SHOW=1` prints every command's actual output.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Files a document names without their corpus folder: (document, name in
/// the scratch folder, corpus path, copy instead of link). A `.utoc` brings
/// the files beside it that share its stem (`.ucas`, partitions, `.pak`).
const SETUP: &[(&str, &str, &str, bool)] = &[
    ("README.md", "DE.umod", "umod/DE.umod", false),
    ("README.md", "DM-Gael.ut2", "ue2/DM-Gael.ut2", false),
    ("README.md", "Chizra1.umx", "ue1/Chizra1.umx", false),
    ("README.md", "ChizraEFX.utx", "ue1/ChizraEFX.utx", false),
    ("README.md", "UTCredits.unr.uz", "uz/UTCredits.unr.uz", false),
    (
        "README.md",
        "CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc",
        "iostore/cue4parse/UE5_8/IoStore/Tagged/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc",
        false,
    ),
    (
        "README.md",
        "CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
        "iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
        false,
    ),
    (
        "README.md",
        "global.utoc",
        "iostore/cue4parse/UE5_8/IoStore/Tagged/global.utoc",
        false,
    ),
    (
        "README.md",
        "CUE4ParseFixtures-PatchBase.utoc",
        "iostore/cue4parse/UE5_8/Patch/IoStore/CUE4ParseFixtures-PatchBase.utoc",
        false,
    ),
    (
        "README.md",
        "CUE4ParseFixtures-PatchBase_0_P.utoc",
        "iostore/cue4parse/UE5_8/Patch/IoStore/CUE4ParseFixtures-PatchBase_0_P.utoc",
        false,
    ),
    ("README.md", "crypto.json", "pak/repak_tests/crypto.json", false),
    ("README.md", "root", "pak/repak_tests/pack/root", false),
    (
        "README.md",
        "pack_v11_compress_encrypt_encryptindex.pak",
        "pak/repak_tests/packs/pack_v11_compress_encrypt_encryptindex.pak",
        false,
    ),
    ("umod.md", "DE.umod", "umod/DE.umod", false),
    ("umod.md", "DropStuff.umod", "umod/DropStuff.umod", false),
];

/// Documents whose examples use the game folder `UT/`.
const UT_DOCS: &[&str] = &["README.md", "system.md", "umod.md"];

#[test]
fn every_doc_example_runs_as_written() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let root = pakrat_testkit::repo_root();
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);

    let started = Instant::now();
    let results: Vec<(String, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .iter()
            .map(|doc| {
                let corpus = &corpus;
                let root = &root;
                s.spawn(move || run_doc(doc, corpus, root))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut report = String::new();
    let mut ran = 0;
    for (name, n, failures) in &results {
        ran += n;
        eprintln!("{name}: {n} command(s), {} failure(s)", failures.len());
        for f in failures {
            report.push_str(f);
            report.push('\n');
        }
    }
    eprintln!(
        "{ran} doc commands in {} files, {:.1}s",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(ran > 100, "only {ran} commands found in the docs");
    assert!(report.is_empty(), "doc examples that fail:\n{report}");
}

/// One command of a document.
#[derive(Debug)]
struct Cmd {
    line: usize,
    text: String,
    /// Expected output lines, `None` when the block shows none.
    expect: Option<Vec<String>>,
    code: i32,
}

/// Parse a document into its commands to run; problems with the markers or
/// unmarked blocks that cannot run go to `errors`.
fn parse(name: &str, text: &str, errors: &mut Vec<String>) -> Vec<Cmd> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cmds = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let fence = i;
        let mut end = fence + 1;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        let body = &lines[fence + 1..end.min(lines.len())];
        i = end + 1;

        // Markers: the HTML comments right above the fence.
        let mut whole: Option<String> = None;
        let mut partial: Vec<(String, bool)> = Vec::new();
        let mut k = fence;
        while k > 0 {
            let l = lines[k - 1].trim();
            let Some(m) = l
                .strip_prefix("<!-- doc-test:")
                .and_then(|m| m.strip_suffix("-->"))
            else {
                break;
            };
            k -= 1;
            let m = m.trim();
            let Some(rest) = m.strip_prefix("not run") else {
                errors.push(format!("{name}:{}: unknown doc-test marker", k + 1));
                continue;
            };
            let rest = rest.trim_start();
            if let Some(reason) = rest.strip_prefix(':') {
                if reason.trim().is_empty() {
                    errors.push(format!("{name}:{}: `not run` without a reason", k + 1));
                }
                whole = Some(reason.trim().to_string());
            } else if let Some(q) = rest.strip_prefix('"') {
                match q.split_once("\":") {
                    Some((pat, reason)) if !reason.trim().is_empty() => {
                        partial.push((pat.to_string(), false))
                    }
                    _ => errors.push(format!(
                        "{name}:{}: expected `not run \"TEXT\": REASON`",
                        k + 1
                    )),
                }
            } else {
                errors.push(format!("{name}:{}: unknown doc-test marker", k + 1));
            }
        }

        let session = body.iter().any(|l| l.starts_with("$ "));
        let tag = info.trim();
        let command_block = session
            || matches!(tag, "sh" | "console" | "shell" | "bash")
            || body
                .iter()
                .any(|l| l.starts_with("pakrat ") || l.starts_with("cargo "));
        if !command_block {
            if whole.is_some() || !partial.is_empty() {
                errors.push(format!(
                    "{name}:{}: doc-test marker on a block that is not a command example",
                    fence + 1
                ));
            }
            continue;
        }
        if whole.is_some() {
            continue;
        }

        let mut block: Vec<Cmd> = Vec::new();
        let mut j = 0;
        while j < body.len() {
            let raw = body[j];
            let at = fence + 2 + j;
            let start = if session {
                raw.strip_prefix("$ ")
            } else if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
                None
            } else {
                Some(raw)
            };
            let Some(start) = start else {
                if session && block.is_empty() && !raw.trim().is_empty() {
                    errors.push(format!("{name}:{at}: output before the first `$ ` line"));
                }
                j += 1;
                continue;
            };
            let mut text = start.trim_end().to_string();
            j += 1;
            while text.ends_with('\\') && j < body.len() {
                text.pop();
                text.push(' ');
                text.push_str(body[j].trim());
                j += 1;
            }
            let mut expect = None;
            let mut code = 0;
            if session {
                let mut out: Vec<String> = Vec::new();
                let has_comment = text.contains("  # ");
                while j < body.len() && !body[j].starts_with("$ ") {
                    let l = body[j];
                    // The continued comment of a command line.
                    let comment = has_comment
                        && out.is_empty()
                        && l.starts_with("          ")
                        && l.trim_start().starts_with('#');
                    if !comment {
                        out.push(l.trim_end().to_string());
                    }
                    j += 1;
                }
                while out.last().is_some_and(|l| l.is_empty()) {
                    out.pop();
                }
                if let Some(n) = out
                    .last()
                    .and_then(|l| l.strip_prefix("(exit "))
                    .and_then(|l| l.strip_suffix(')'))
                {
                    code = n.parse().unwrap_or(-1);
                    out.pop();
                }
                if !out.is_empty() {
                    expect = Some(out);
                }
            }
            let skipped = partial.iter_mut().any(|(pat, used)| {
                let hit = text.contains(pat.as_str());
                *used |= hit;
                hit
            });
            if !skipped {
                block.push(Cmd {
                    line: at,
                    text,
                    expect,
                    code,
                });
            }
        }
        for (pat, used) in &partial {
            if !used {
                errors.push(format!(
                    "{name}:{}: `not run \"{pat}\"` matches no command of the block",
                    fence + 1
                ));
            }
        }
        cmds.extend(block);
    }
    cmds
}

/// Run one document's commands; returns its name, the number of commands
/// and the failures.
fn run_doc(doc: &Path, corpus: &Path, root: &Path) -> (String, usize, Vec<String>) {
    let name = doc.file_name().unwrap().to_string_lossy().into_owned();
    let text = fs::read_to_string(doc).unwrap();
    let mut failures = Vec::new();
    let cmds = parse(&name, &text, &mut failures);
    if cmds.is_empty() {
        return (name, 0, failures);
    }

    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("work");
    fs::create_dir(&dir).unwrap();
    for e in fs::read_dir(corpus).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            std::os::unix::fs::symlink(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    std::os::unix::fs::symlink(root.join("examples"), dir.join("examples")).unwrap();
    fs::create_dir(dir.join("target")).unwrap();
    for (d, local, path, copy) in SETUP {
        if *d != name {
            continue;
        }
        let src = corpus.join(path);
        let mut pairs = vec![(src.clone(), dir.join(local))];
        if path.ends_with(".utoc") {
            let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
            for e in fs::read_dir(src.parent().unwrap()).unwrap() {
                let p = e.unwrap().path();
                let f = p.file_name().unwrap().to_string_lossy().into_owned();
                let ok = f.strip_prefix(&stem).is_some_and(|r| {
                    r == ".ucas" || r == ".pak" || (r.starts_with("_s") && r.ends_with(".ucas"))
                });
                if ok {
                    pairs.push((p.clone(), dir.join(&f)));
                }
            }
        }
        for (s, d) in pairs {
            assert!(s.exists(), "{name}: setup file {} is missing", s.display());
            if *copy {
                fs::copy(&s, &d).unwrap();
            } else {
                std::os::unix::fs::symlink(&s, &d).unwrap();
            }
        }
    }
    if UT_DOCS.contains(&name.as_str()) {
        ut_tree(corpus, &dir.join("UT"), name != "system.md");
    }
    let bin = scratch.path().join("bin");
    fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pakrat"), bin.join("pakrat")).unwrap();

    const MARK: &str = "@@DOC-TEST@@";
    let mut script = String::from(
        "exec 2>&1\n\
         cargo() {\n\
           if [ \"$1 $2 $3 $4\" = 'run --release -q --' ]; then shift 4; pakrat \"$@\";\n\
           else echo \"doc test: 'cargo $*' is not run here\"; return 127; fi\n\
         }\n",
    );
    for (n, c) in cmds.iter().enumerate() {
        writeln!(script, "printf '\\n{MARK} {n}\\n'").unwrap();
        script.push_str(&c.text);
        script.push('\n');
        writeln!(script, "printf '\\n{MARK} exit %d\\n' $?").unwrap();
    }
    fs::write(scratch.path().join("doc.sh"), &script).unwrap();
    let out_path = scratch.path().join("out.txt");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("sh")
        .arg(scratch.path().join("doc.sh"))
        .current_dir(&dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C") // `ls` order, messages of the tools beside pakrat
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            // The whole group: the shell and what it started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            failures.push(format!("{name}: the commands did not finish in 120 s"));
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = String::from_utf8_lossy(&fs::read(&out_path).unwrap()).into_owned();

    // Split the output at the markers.
    let mut outputs: Vec<Option<(String, i32)>> = (0..cmds.len()).map(|_| None).collect();
    let mut rest = out.as_str();
    while let Some(p) = rest.find(&format!("\n{MARK} ")) {
        rest = &rest[p + MARK.len() + 2..];
        let (head, tail) = rest.split_once('\n').unwrap_or((rest, ""));
        let Ok(n) = head.trim().parse::<usize>() else {
            continue;
        };
        let end = tail.find(&format!("\n{MARK} exit ")).unwrap_or(tail.len());
        let body = &tail[..end];
        let after = &tail[end..];
        let code = after
            .strip_prefix(&format!("\n{MARK} exit "))
            .and_then(|a| a.split('\n').next())
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or(-1);
        if n < outputs.len() {
            outputs[n] = Some((body.to_string(), code));
        }
        rest = after;
    }

    let mut prefixes = vec![format!("{}/", dir.display())];
    if let Ok(c) = dir.canonicalize() {
        prefixes.push(format!("{}/", c.display()));
    }
    let show = std::env::var_os("DOC_TEST_SHOW").is_some();
    for (c, got) in cmds.iter().zip(outputs) {
        let Some((body, code)) = got else {
            failures.push(format!(
                "{name}:{}: `{}` did not run (an earlier command stopped the script)",
                c.line, c.text
            ));
            continue;
        };
        // Absolute paths into the scratch folder are shown relative to it.
        let body = prefixes.iter().fold(body, |b, p| b.replace(p.as_str(), ""));
        let mut raw: Vec<&str> = body.lines().map(str::trim_end).collect();
        while raw.last().is_some_and(|l| l.is_empty()) {
            raw.pop();
        }
        let actual: Vec<String> = raw.iter().map(|l| mask(l)).collect();
        if show {
            eprintln!(
                "---- {name}:{} $ {} (exit {code})\n{}",
                c.line,
                c.text,
                raw.join("\n")
            );
        }
        let mut why = Vec::new();
        if code != c.code {
            why.push(format!("exit {code}, the doc says {}", c.code));
        }
        if let Some(exp) = &c.expect {
            let exp: Vec<String> = exp.iter().map(|l| mask(l)).collect();
            if !lines_match(&exp, &actual) {
                why.push("output differs".into());
            }
        }
        if !why.is_empty() {
            let mut f = format!(
                "{name}:{}: $ {}\n  {}\n  expected:\n",
                c.line,
                c.text,
                why.join("; ")
            );
            for l in c.expect.iter().flatten() {
                let _ = writeln!(f, "    |{l}");
            }
            f.push_str("  actual:\n");
            for l in &raw {
                let _ = writeln!(f, "    |{l}");
            }
            failures.push(f);
        }
    }
    (name, cmds.len(), failures)
}

/// Mask timings: `in 0.01s` -> `in [T]s`.
fn mask(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(p) = rest.find("in ") {
        out.push_str(&rest[..p + 3]);
        rest = &rest[p + 3..];
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if n > 0 && rest[n..].starts_with('s') && !rest[n + 1..].starts_with(char::is_alphanumeric)
        {
            out.push_str("[T]");
            rest = &rest[n..];
        }
    }
    out.push_str(rest);
    out
}

fn is_ellipsis(l: &str) -> bool {
    matches!(l.trim(), "..." | "…")
}

/// Lines against expected lines with `...` lines (any number of lines).
fn lines_match(exp: &[String], act: &[String]) -> bool {
    match exp.split_first() {
        None => act.is_empty(),
        Some((e, rest)) if is_ellipsis(e) => (0..=act.len()).any(|k| lines_match(rest, &act[k..])),
        Some((e, rest)) => {
            !act.is_empty() && line_matches(e, &act[0]) && lines_match(rest, &act[1..])
        }
    }
}

/// One line against an expected line with `[..]`, `...`, `…` (any text).
fn line_matches(exp: &str, act: &str) -> bool {
    let e = exp
        .replace("[..]", "\0")
        .replace("...", "\0")
        .replace('…', "\0");
    let parts: Vec<&str> = e.split('\0').collect();
    if parts.len() == 1 {
        return exp == act;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !act.starts_with(first) || act.len() < first.len() + last.len() || !act.ends_with(last) {
        return false;
    }
    let mut mid = &act[first.len()..act.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match mid.find(p) {
            Some(i) => mid = &mid[i + p.len()..],
            None => return false,
        }
    }
    true
}

const UT99_INI: &str =
    "[URL]\r\nMap=Index.unr\r\n\r\n[Core.System]\r\nPurgeCacheDays=30\r\nSavePath=../Save\r\n\
CachePath=../Cache\r\nCacheExt=.uxx\r\nPaths[0]=../System/*.u\r\nPaths[1]=../Maps/*.unr\r\n\
Paths[2]=../Textures/*.utx\r\nPaths[3]=../Sounds/*.uax\r\nPaths[4]=../Music/*.umx\r\n";

/// The UT99 game folder of docs/system.md (copies, since commands write in
/// it): `System/` with Core, Engine, IpDrv, IACEv10, ACEv10f_S, the stock
/// `UnrealTournament.ini` and (`manifest`) a `Manifest.ini` naming UT 436;
/// `Maps/Entry.unr`, `Textures/Logo.utx`, `Cannon.umx` as `Music/Logo.umx`
/// (a collision on purpose); `Cache/` with Logo.utx, Cannon.umx and
/// UWindow.u under their GUIDs, a package under an unsafe name, an entry
/// whose file is gone and a file named with a GUID that is not its own.
fn ut_tree(corpus: &Path, ut: &Path, manifest: bool) {
    let ue1 = corpus.join("ue1");
    for d in ["System", "Maps", "Textures", "Music", "Cache", "Help"] {
        fs::create_dir_all(ut.join(d)).unwrap();
    }
    for f in ["Core.u", "Engine.u", "IpDrv.u", "IACEv10.u", "ACEv10f_S.u"] {
        fs::copy(ue1.join(f), ut.join("System").join(f)).unwrap();
    }
    fs::copy(ue1.join("Entry.unr"), ut.join("Maps/Entry.unr")).unwrap();
    fs::copy(ue1.join("Logo.utx"), ut.join("Textures/Logo.utx")).unwrap();
    fs::copy(ue1.join("Cannon.umx"), ut.join("Music/Logo.umx")).unwrap();
    fs::write(ut.join("System/UnrealTournament.ini"), UT99_INI).unwrap();
    if manifest {
        fs::write(
            ut.join("System/Manifest.ini"),
            "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\n\
             Caption=Unreal Tournament\r\nVersion=436\r\n",
        )
        .unwrap();
    }
    let cache = ut.join("Cache");
    let put = |local: &str, guid: &str| {
        fs::copy(ue1.join(local), cache.join(format!("{guid}.uxx"))).unwrap();
    };
    put("Logo.utx", "A63C5AA011D3876BE0006295BE341081");
    put("Cannon.umx", "C073771511D2D1A4E000278383161081");
    put("UWindow.u", "4770B88711D38E3E100067B9F6F8975A");
    put("LadrArrow.utx", "2E005A6111D2FB5650004BB23FDC1804");
    put("Creative.utx", "000000010000002C1771F07E11D2A6ED");
    fs::write(
        cache.join("cache.ini"),
        "[Cache]\r\nA63C5AA011D3876BE0006295BE341081=Logo.utx\r\n\
         C073771511D2D1A4E000278383161081=Cannon.umx\r\n\
         4770B88711D38E3E100067B9F6F8975A=UWindow.u\r\n\
         2E005A6111D2FB5650004BB23FDC1804=..\\..\\Windows\\evil.utx\r\n\
         FFFFFFFF00000000FFFFFFFF00000000=Gone.u\r\n",
    )
    .unwrap();
}

#[test]
fn matcher_elides_lines_and_text() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &v(&["a", "...", "d"]),
        &v(&["a", "b", "c", "d"])
    ));
    assert!(lines_match(&v(&["a", "…"]), &v(&["a"])));
    assert!(!lines_match(&v(&["a", "d"]), &v(&["a", "b", "d"])));
    assert!(line_matches("x [..] z", "x yyy z"));
    assert!(line_matches(
        "…: 97 packages",
        "some/file.utoc: 97 packages"
    ));
    assert!(!line_matches("x [..] z", "x yyy w"));
    assert!(!line_matches("abc", "abd"));
    assert_eq!(
        mask("extracted 8 files in 0.01s"),
        "extracted 8 files in [T]s"
    );
    assert_eq!(mask("in 5 seconds"), "in 5 seconds");
}

#[test]
fn unmarked_blocks_are_run_and_markers_checked() {
    let doc = "```sh\ncargo test\n```\n\n<!-- doc-test: not run: a server -->\n```sh\npakrat view x\n```\n\
               <!-- doc-test: not run \"nope\": x -->\n```console\n$ pakrat info a\nout\n(exit 1)\n```\n\
               ```text\nplain listing\n```\n";
    let mut errors = Vec::new();
    let cmds = parse("t.md", doc, &mut errors);
    assert_eq!(cmds.len(), 2, "{cmds:?}");
    assert_eq!(cmds[0].text, "cargo test");
    assert_eq!(cmds[1].code, 1);
    assert_eq!(cmds[1].expect.as_deref(), Some(&["out".to_string()][..]));
    assert_eq!(errors.len(), 1, "{errors:?}");
}
