//! The `pakrat` command-line tool: a thin layer over the pakrat library crates.

mod args;
mod args_asset;
mod args_export;
mod args_headers;
mod args_pak;
mod args_props;
mod args_registry;
mod args_ue;
mod cmd;
mod detect;
mod output;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Parser;

use args::{Cli, Command};
use detect::Format;
use pakrat_iostore::container_header::HeaderForm;

/// mimalloc rather than the system allocator: bulk conversion makes and
/// frees many small buffers from every thread (issue 31 item 18; the
/// figures are in docs/iostore.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // Only fails if a pool already exists, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    cmd::common::set_quiet(cli.quiet);
    let res = run(cli.command);
    // An input cut short while it was read (see pakrat_io::mapguard) was
    // read as zeros past its new end: whatever the command made of it is
    // not to be trusted, so that is the error, whatever the outcome.
    let res = match pakrat_io::mapguard::check_inputs() {
        Ok(()) => res,
        Err(e) => Err(anyhow::Error::new(e)),
    };
    let swept = pakrat_io::fsutil::leftovers_removed();
    if swept > 0 {
        eprintln!(
            "pakrat: note: removed {swept} leftover temporary file(s) (.pakrat-tmp-<pid>-*) of an earlier run that was killed"
        );
    }
    match res {
        Ok(code) => code,
        Err(e) => {
            // Errors quote names from the input: no raw escape sequence
            // may reach the terminal (one could hide or rewrite a line).
            let text = output::error_text(&e);
            eprintln!("pakrat: error: {}", pakrat_io::text::show(&text));
            if wants_json() {
                // A pipe into a JSON tool still gets JSON.
                let _ = output::print_json(&output::error_json(&e, &text, 2));
            }
            ExitCode::from(2)
        }
    }
}

/// What `list`/`verify`/`extract` say about a `.uz`: it holds one file,
/// which `info` describes and `decompress` restores.
fn uz_hint(file: &Path, command: &str) -> String {
    format!(
        "{}: is a redirect-compressed package (.uz/.uz2/.uz3), one file with nothing to {command} inside; `pakrat info` describes it, `pakrat decompress` restores the package (then `pakrat {command}` that)",
        file.display()
    )
}

/// `--json` among the arguments (before a `--`).
fn wants_json() -> bool {
    std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// Like `cat`, die quietly when the reader of our output goes away
/// (`pakrat list X | head`) instead of panicking in `println!`.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL
    // is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Sniff a file's format from its content.
pub fn sniff(path: &Path) -> Result<Format> {
    let probe = detect::Probe::open(path)?;
    match detect::detect(path, &probe) {
        Some(f) => Ok(f),
        None if probe.is_empty() => bail!("{}: is empty (0 bytes)", path.display()),
        // Named as a format that ends with its magic: most likely cut short.
        None if has_ext(path, "umod") => bail!(
            "{}: looks truncated: no trailer at the end (a .umod ends with a 20-byte trailer, magic A3 C5 E3 9F), or it is not a file pakrat reads ({})",
            path.display(),
            detect::commands_for(None)
        ),
        None if has_ext(path, "pak") => bail!(
            "{}: looks truncated: no footer at the end (a .pak ends with its footer, magic E1 12 6F 5A), or it is not a file pakrat reads ({})",
            path.display(),
            detect::commands_for(None)
        ),
        None if has_ext(path, "bin") => bail!(
            "{}: not a file pakrat reads: no known magic at the start or end ({}); a UE4 IoStore container header chunk has no magic: name the release (`--ue-version 4.27`) to read it as one",
            path.display(),
            detect::commands_for(None)
        ),
        None => bail!(
            "{}: not a file pakrat reads: no known magic at the start or end ({})",
            path.display(),
            detect::commands_for(None)
        ),
    }
}

fn has_ext(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case(ext))
}

/// [`detect::describe`] of a file on disk.
fn describe_file(path: &Path) -> String {
    match detect::Probe::open(path) {
        Ok(probe) => detect::describe(path, &probe),
        Err(e) => e.to_string(),
    }
}

/// Sniff `file`; for a `.ucas` (or `_sN.ucas` partition) point `file` at the
/// `.utoc` that describes it, since the data file has no header of its own.
fn sniff_arg(file: &mut std::path::PathBuf) -> Result<Format> {
    output::set_input(file);
    let format = sniff(file)?;
    output::set_kind(format.kind());
    if format == Format::IoStoreCas {
        if let Some(toc) = detect::utoc_for_ucas(file) {
            *file = toc;
        }
    }
    Ok(format)
}

/// The `kind` of a command's JSON when the command itself says what it
/// works on (writers, and commands that take one format only); `None`
/// when the input's detected format decides ([`sniff_arg`]).
fn command_kind(command: &Command) -> Option<&'static str> {
    use args::{IostoreCommand as I, ZenCommand as Z};
    Some(match command {
        Command::Info(_) | Command::Verify(_) | Command::Extract(_) => return None,
        Command::List(a) if a.file.is_dir() => "pak",
        Command::List(_) => return None,
        // A folder of paks or of loose packages: props decides.
        Command::Props(_) => return None,
        // UE1/UE2 packages, or UE4/UE5 inputs: export decides.
        Command::Export(_) => return None,
        Command::Deps(_) | Command::Flags(_) | Command::Package(_) => "package",
        Command::Packages(_) | Command::Zen(Z::ToLegacy(_)) => "iostore",
        Command::Zen(Z::FromLegacy(_)) | Command::Asset(_) => "legacy",
        Command::Iostore(I::Repack(_) | I::Create(_) | I::Patch(_)) => "iostore",
        Command::Compress(_) | Command::Decompress(_) => "uz",
        Command::Umod(_) => "umod",
        Command::Pak(_) => "pak",
        Command::Scan(_) | Command::View(_) => "folder",
        Command::Cache(_) => "cache",
        Command::Registry(_) => "asset-registry",
        Command::Completions(_) | Command::Man(_) => return None,
    })
}

/// Write the page of `cmd` (`NAME.1`) and, recursively, one page per
/// subcommand, named as its parent's page refers to it:
/// `pakrat-umod-create.1`. Returns the number of pages written.
fn man_pages(out: &pakrat_io::fsutil::OutputDir, mut cmd: clap::Command) -> Result<usize> {
    // Built as the page renders it.
    cmd.build();
    let name = cmd
        .get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    out.write(&man.get_filename(), &page)?;
    let mut n = 1;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let sub = sub
            .clone()
            .display_name(format!("{name}-{}", sub.get_name()));
        n += man_pages(out, sub)?;
    }
    Ok(n)
}

/// `cmd` without clap's `help` subcommands (at every level): the pages
/// are the manual; `pakrat help X` would add a page per page.
fn without_help(mut cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for n in names {
        cmd = cmd.mut_subcommand(n, without_help);
    }
    cmd.disable_help_subcommand(true)
}

fn run(command: Command) -> Result<ExitCode> {
    if let Some(kind) = command_kind(&command) {
        output::set_kind(kind);
    }
    match command {
        Command::Info(a) => info(a),
        Command::List(a) => list(a),
        Command::Verify(a) => verify(a),
        Command::Extract(a) => extract(a),
        Command::Props(a) => cmd::props::run(&a),
        Command::Export(a) if cmd::ue_export::takes(&a.package) => cmd::ue_export::run(&a),
        Command::Export(a) => {
            output::set_kind("package");
            detect::require(&a.package, &[Format::Package], "a UE1/UE2 package")?;
            cmd::package::export(&a)
        }
        Command::Packages(a) => {
            detect::require(
                &a.file,
                &[Format::IoStoreToc, Format::IoStoreCas],
                "an IoStore container",
            )?;
            cmd::iostore::packages(&a)
        }
        Command::Deps(a) => cmd::system::deps(&a),
        Command::Scan(a) => cmd::system::scan(&a),
        Command::Flags(a) => {
            detect::require(&a.package, &[Format::Package], "a UE1/UE2 package")?;
            cmd::system::flags(&a)
        }
        Command::Compress(a) => cmd::uz::compress(&a),
        Command::Decompress(a) => {
            for f in a.files.iter().filter(|f| f.is_file()) {
                detect::require(f, &[Format::Uz], "a .uz/.uz2/.uz3 file")?;
            }
            cmd::uz::decompress(&a)
        }
        Command::Umod(c) => umod(c),
        Command::Pak(c) => match c {
            args::PakCommand::Create(a) => cmd::pak::create(&a),
        },
        Command::Iostore(c) => match c {
            args::IostoreCommand::Repack(a) => cmd::iostore_write::repack(&a),
            args::IostoreCommand::Create(a) => cmd::iostore_write::create(&a),
            args::IostoreCommand::Patch(a) => cmd::iostore_write::patch(&a),
        },
        Command::Zen(c) => zen(c),
        Command::Completions(a) => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(a.shell, &mut cmd, "pakrat", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man(a) => man(&a),
        Command::Package(c) => package(c),
        Command::Asset(c) => match c {
            args::AssetCommand::Rename(a) => cmd::asset::rename(&a),
        },
        Command::View(a) => cmd::view::view(&a),
        Command::Registry(c) => match c {
            args::RegistryCommand::Info(a) => cmd::registry::info(&a.file, a.out.json),
            args::RegistryCommand::List(a) => cmd::registry::list(&a.file, a.tags, a.out.json),
            args::RegistryCommand::Verify(a) => cmd::registry::verify(&a.file, a.out.json),
            args::RegistryCommand::Merge(a) => cmd::registry::merge(&a),
        },
        Command::Cache(c) => match c {
            args::CacheCommand::List(a) => cmd::system::cache_list(&a),
            args::CacheCommand::Restore(a) => cmd::system::cache_restore(&a),
        },
    }
}

/// A signature-less UE4 container-header chunk: the user named a UE4
/// release with one (`--ue-version 4.25`–`4.27`) and the file is nothing
/// else pakrat knows. Its UE4 form, or `None`.
fn ue4_container_header(file: &Path, ue_version: Option<&str>) -> Option<HeaderForm> {
    let form = cmd::container_header::ue4_form(ue_version)?;
    let probe = detect::Probe::open(file).ok()?;
    if detect::detect(file, &probe).is_some() || probe.is_empty() {
        return None;
    }
    output::set_input(file);
    output::set_kind(Format::ContainerHeader.kind());
    Some(form)
}

/// `info`, by the format of the file.
fn info(mut a: args::InfoArgs) -> Result<ExitCode> {
    let ue4 = ue4_container_header(&a.file, a.ue_version.as_deref());
    if ue4.is_some() {
        return cmd::container_header::info(&a.file, ue4, a.out.json);
    }
    match sniff_arg(&mut a.file)? {
        Format::ContainerHeader => cmd::container_header::info(&a.file, None, a.out.json),
        Format::AssetRegistry => cmd::registry::info(&a.file, a.out.json),
        Format::Umod => cmd::umod::info(&a),
        Format::Package => cmd::package::info(&a),
        Format::LegacyPackage => cmd::legacy::info(&a),
        Format::IoStoreToc | Format::IoStoreCas => cmd::iostore::info(&a),
        Format::Pak => cmd::pak::info(&a),
        Format::Uz => cmd::uz::info(&a),
        Format::Usmap => cmd::usmap::info(&a),
    }
}

/// `list`, by the format of the file (a folder: the paks in it); options
/// that do not apply to the format are refused.
fn list(mut a: args::ListArgs) -> Result<ExitCode> {
    if a.file.is_dir() {
        return cmd::paks_folder::list(&a);
    }
    let ue4 = ue4_container_header(&a.file, a.ue_version.as_deref());
    if ue4.is_some() {
        return cmd::container_header::list(&a.file, ue4, a.out.json);
    }
    match sniff_arg(&mut a.file)? {
        f if (a.names || a.imports || a.exports)
            && !matches!(f, Format::Package | Format::LegacyPackage) =>
        {
            bail!(
                "{}: --names, --imports and --exports list package tables (UE1/UE2 packages, UE4/UE5 .uasset); this is {}",
                a.file.display(),
                describe_file(&a.file)
            )
        }
        f if a.chunks && !matches!(f, Format::IoStoreToc | Format::IoStoreCas) => bail!(
            "{}: --chunks lists IoStore chunks; this is {}",
            a.file.display(),
            describe_file(&a.file)
        ),
        Format::Pak => cmd::pak::list(&a),
        Format::Usmap => cmd::usmap::list(&a),
        _ if !a.globs.is_empty() => bail!(
            "{}: GLOB filters of `list` apply to .pak files and .usmap mappings (use `extract` with globs for other formats)",
            a.file.display()
        ),
        Format::Umod => cmd::umod::list(&a),
        Format::Package => cmd::package::list(&a),
        Format::LegacyPackage => cmd::legacy::list(&a),
        Format::IoStoreToc | Format::IoStoreCas => cmd::iostore::list(&a),
        Format::ContainerHeader => cmd::container_header::list(&a.file, None, a.out.json),
        Format::AssetRegistry => cmd::registry::list(&a.file, false, a.out.json),
        Format::Uz => bail!("{}", uz_hint(&a.file, "list")),
    }
}

/// `verify`, by the format of the file.
fn verify(mut a: args::VerifyArgs) -> Result<ExitCode> {
    let ue4 = ue4_container_header(&a.file, a.ue_version.as_deref());
    if ue4.is_some() {
        return cmd::container_header::verify(&a.file, ue4, a.out.json);
    }
    match sniff_arg(&mut a.file)? {
        Format::ContainerHeader => cmd::container_header::verify(&a.file, None, a.out.json),
        Format::AssetRegistry => cmd::registry::verify(&a.file, a.out.json),
        Format::Pak => cmd::pak::verify(&a),
        Format::Umod => cmd::umod::verify(&a),
        Format::Package => cmd::package::verify(&a),
        Format::LegacyPackage => cmd::legacy::verify(&a),
        Format::IoStoreToc | Format::IoStoreCas => cmd::iostore::verify(&a),
        Format::Uz => bail!("{}", uz_hint(&a.file, "verify")),
        Format::Usmap => cmd::usmap::verify(&a),
    }
}

/// `extract`, by the format of the file; packages and .uz files say what
/// to use instead.
fn extract(mut a: args::ExtractArgs) -> Result<ExitCode> {
    match sniff_arg(&mut a.file)? {
        Format::Pak => cmd::pak::extract(&a),
        Format::Umod => cmd::umod::extract(&a),
        Format::IoStoreToc | Format::IoStoreCas => cmd::iostore::extract(&a),
        Format::Package => bail!(
            "{}: is a package; use `pakrat export` to export its objects",
            a.file.display()
        ),
        Format::LegacyPackage => bail!(
            "{}: is a UE4/UE5 package (its export data is in the .uexp beside it); nothing to extract. `pakrat list` shows its tables, `pakrat zen from-legacy` turns it into a zen package",
            a.file.display()
        ),
        Format::Uz => bail!("{}", uz_hint(&a.file, "extract")),
        Format::ContainerHeader => bail!(
            "{}: is an IoStore container header chunk (package ids and store entries), nothing to extract; `pakrat info`/`list`/`verify` read it",
            a.file.display()
        ),
        Format::AssetRegistry => bail!(
            "{}: is an asset registry (AssetRegistry.bin), one file with nothing to extract inside; `pakrat registry info|list|verify|merge` read it",
            a.file.display()
        ),
        Format::Usmap => bail!(
            "{}: is .usmap property mappings, one file with nothing to extract inside; `pakrat info` describes it, `pakrat list` lists its structs and enums",
            a.file.display()
        ),
    }
}

/// `umod create|install|uninstall|recover`.
fn umod(c: args::UmodCommand) -> Result<ExitCode> {
    match c {
        args::UmodCommand::Create(a) => cmd::umod::create(&a),
        args::UmodCommand::Install(a) => {
            detect::require(&a.file, &[Format::Umod], "a UMOD installer")?;
            cmd::umod::install(&a)
        }
        args::UmodCommand::Uninstall(a) => cmd::umod::uninstall(&a),
        args::UmodCommand::Recover(a) => cmd::umod::recover(&a),
    }
}

/// `zen to-legacy|from-legacy`.
fn zen(c: args::ZenCommand) -> Result<ExitCode> {
    match c {
        args::ZenCommand::ToLegacy(a) => {
            detect::require(
                &a.file,
                &[Format::IoStoreToc, Format::IoStoreCas],
                "an IoStore container",
            )?;
            cmd::zen::to_legacy(&a)
        }
        args::ZenCommand::FromLegacy(a) => cmd::zen::from_legacy(&a),
    }
}

/// `man`: the manual page on stdout, or one page a command into a folder.
fn man(a: &args::ManArgs) -> Result<ExitCode> {
    use clap::CommandFactory;
    match &a.output {
        None => {
            clap_mangen::Man::new(without_help(Cli::command())).render(&mut std::io::stdout())?;
        }
        Some(dir) => {
            let out = pakrat_io::fsutil::OutputDir::create(dir, a.force)?;
            let n = man_pages(&out, without_help(Cli::command()))?;
            println!("wrote {n} manual pages into {}", out.root().display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `package rename-name|rename|set-guid|set-flags|strip|headers`, on a UE1/UE2
/// package only.
fn package(c: args::PackageCommand) -> Result<ExitCode> {
    use args::PackageCommand as P;
    let file = match &c {
        P::RenameName(a) => &a.package,
        P::Rename(a) => &a.package,
        P::SetGuid(a) => &a.package,
        P::SetFlags(a) => &a.package,
        P::Strip(a) => &a.package,
        P::Headers(a) => &a.package,
    };
    detect::require(file, &[Format::Package], "a UE1/UE2 package")?;
    match c {
        P::RenameName(a) => cmd::rewrite::rename_name(&a),
        P::Rename(a) => cmd::rewrite::rename(&a),
        P::SetGuid(a) => cmd::rewrite::set_guid(&a),
        P::SetFlags(a) => cmd::rewrite::set_flags(&a),
        P::Strip(a) => cmd::rewrite::strip(&a),
        P::Headers(a) => cmd::headers::headers(&a),
    }
}
