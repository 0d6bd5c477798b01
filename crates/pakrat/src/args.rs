//! The command-line tree. Handlers live in `cmd/`, one module per format.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// `pakrat --version`: the crate version and, built from a checkout, the
/// git commit (`build.rs`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), env!("PAKRAT_GIT_SUFFIX"));

/// pakrat: read, verify, extract and build Unreal Engine files: UMOD
/// installers, Unreal packages (UE1/UE2 and UE4/UE5 .uasset), .uz/.uz2/.uz3
/// redirect files, .pak files and IoStore containers; .usmap mappings.
///
/// The format of every input is detected from its content (UMOD trailer,
/// package tag, IoStore TOC magic, .pak footer, .uz header), not from its
/// extension.
#[derive(Parser, Debug)]
#[command(name = "pakrat", version = VERSION, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Worker threads for parallel work (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars, and no per-file lines from extract and
    /// conversions; results and errors still print.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Summary of a UMOD, package, .uz file, .pak, IoStore container or .usmap.
    Info(InfoArgs),
    /// List the contents: UMOD files, package tables, .pak or IoStore paths, chunks, .usmap structs.
    List(ListArgs),
    /// Check checksums, bounds and internal consistency; explain each failure.
    Verify(VerifyArgs),
    /// Extract files (UMOD members, .pak entries, IoStore files and chunks) into a folder.
    Extract(ExtractArgs),
    /// Decoded properties of a package's objects (UE1/UE2; UE4/UE5 loose or in a container).
    Props(PropsArgs),
    /// Export package objects (textures to PNG, sounds, music, script text, meshes to glTF).
    Export(ExportArgs),
    /// Zen packages in an IoStore container: names, imports, exports.
    Packages(PackagesArgs),
    /// Transitive dependency tree of a package inside a game folder.
    Deps(DepsArgs),
    /// Scan a folder tree of packages: versions, GUIDs, collisions, missing imports.
    Scan(ScanArgs),
    /// Show or change a package's flags (AllowDownload, ServerSideOnly, ...).
    Flags(FlagsArgs),
    /// Compress files for a redirect server (.uz, .uz2, .uz3).
    Compress(CompressArgs),
    /// Decompress .uz/.uz2/.uz3 files back to packages.
    Decompress(DecompressArgs),
    /// Build, install and uninstall UMOD installers.
    #[command(subcommand)]
    Umod(UmodCommand),
    /// Build UE4/UE5 .pak files.
    #[command(subcommand)]
    Pak(PakCommand),
    /// Build and re-encode IoStore containers (.utoc/.ucas + companion .pak).
    #[command(subcommand)]
    Iostore(IostoreCommand),
    /// Convert packages between zen (IoStore) and legacy (.uasset + .uexp).
    #[command(subcommand)]
    Zen(ZenCommand),
    /// The GUID-keyed download cache (Cache/*.uxx + cache.ini).
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Change UE1/UE2 packages: rename a name or the package, set the GUID
    /// or flags, strip script source (tables rewritten, object data kept).
    #[command(subcommand)]
    Package(PackageCommand),
    /// UE4/UE5 edits across a folder of legacy packages: rename a package
    /// path or folder everywhere it is named.
    #[command(subcommand)]
    Asset(AssetCommand),
    /// AssetRegistry.bin: info, list, verify, and merge a mod's registry
    /// into a game's.
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Look at a game folder, package, UMOD, .pak or IoStore container in
    /// the browser (a local server on 127.0.0.1).
    View(ViewArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the manual page (roff; `pakrat man > pakrat.1`), or write
    /// one page per subcommand into a folder (`pakrat man -o DIR`).
    Man(ManArgs),
}

/// `pakrat man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write `pakrat.1` and one page per subcommand (`pakrat-list.1`,
    /// `pakrat-umod-create.1`, ...) into this folder (made if missing)
    /// instead of printing `pakrat.1`.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Replace pages that exist in the folder.
    #[arg(long)]
    pub force: bool,
}

/// `pakrat view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    /// A folder (a game folder, or any folder of files pakrat reads) or one
    /// file (its folder is served and the file opened).
    pub path: PathBuf,
    /// Port on 127.0.0.1 (default: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Print the URL but do not open a browser.
    #[arg(long)]
    pub no_open: bool,
    /// Print one JSON line when the server is ready: the URL and the
    /// launcher page (a file that forwards to the URL; written even with
    /// --no-open), instead of the bare URL.
    #[arg(long)]
    pub json: bool,
    /// Keys for encrypted paks and containers (more can be typed into the
    /// page).
    #[command(flatten)]
    pub keys: KeyArgs,
    /// UE4/UE5 unversioned properties: the game's .usmap mappings (without
    /// it, the nearest .usmap, or Mappings/*.usmap, from the package's
    /// folder up to the opened folder is used).
    #[arg(long, value_name = "FILE")]
    pub usmap: Option<PathBuf>,
    /// Unversioned legacy UE4/UE5 .uasset: the engine release it was cooked
    /// with (e.g. 4.27, 5.4), which decides its layout.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
}

/// `pakrat completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    pub shell: clap_complete::Shell,
}

/// Output choice shared by listings.
#[derive(Args, Debug, Clone, Default)]
pub struct JsonArg {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// AES keys for encrypted IoStore containers and paks.
#[derive(Args, Debug, Clone, Default)]
pub struct KeyArgs {
    /// AES-256 key as hex (with or without 0x) or base64; may be repeated.
    #[arg(long = "aes-key", value_name = "KEY")]
    pub aes_keys: Vec<String>,
    /// JSON file mapping key GUIDs to keys, or UnrealBuildTool's Crypto.json.
    #[arg(long = "keys", value_name = "FILE")]
    pub keys_file: Option<PathBuf>,
}

/// `pakrat info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The file to describe.
    pub file: PathBuf,
    /// Unversioned UE4/UE5 .uasset: the engine release it was cooked with
    /// (e.g. 4.27, 5.4), which decides its layout.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// `pakrat list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// The file to list (for paks also a folder of paks: the merged view
    /// the engine mounts).
    pub file: PathBuf,
    /// Paks: only files whose path matches one of these globs; .usmap:
    /// only structs and enums whose name does (case-insensitive).
    pub globs: Vec<String>,
    /// Packages: list the name table.
    #[arg(long)]
    pub names: bool,
    /// Packages: list the import table.
    #[arg(long)]
    pub imports: bool,
    /// Packages: list the export table (the default for packages).
    #[arg(long)]
    pub exports: bool,
    /// IoStore: list every chunk id, not only those with a path.
    #[arg(long)]
    pub chunks: bool,
    /// Unversioned UE4/UE5 .uasset: the engine release it was cooked with
    /// (e.g. 4.27, 5.4), which decides its layout.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// `pakrat verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The file to check.
    pub file: PathBuf,
    /// IoStore: accept a container in which no chunk has a hash (it cannot
    /// be verified; a failure otherwise).
    #[arg(long)]
    pub allow_unhashed: bool,
    /// Unversioned UE4/UE5 .uasset: the engine release it was cooked with
    /// (e.g. 4.27, 5.4), which decides its layout.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// `pakrat extract`.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The archive or container.
    pub file: PathBuf,
    /// Only members whose path matches one of these globs (case-insensitive).
    pub globs: Vec<String>,
    /// Output folder.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Replace files that already exist.
    #[arg(long)]
    pub force: bool,
    /// UMOD: extract even when the archive CRC does not match.
    #[arg(long)]
    pub ignore_crc: bool,
    /// IoStore: extract every chunk by id, including those without a path.
    #[arg(long)]
    pub chunks: bool,
    /// IoStore: write chunks without checking their hashes (a chunk whose
    /// hash does not match is otherwise not written).
    #[arg(long)]
    pub no_verify: bool,
    /// IoStore: keep shader libraries as stored (IoStore form, group chunks) instead of the pak form.
    #[arg(long)]
    pub raw_shaders: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// `pakrat props`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct PropsArgs {
    /// Edit instead of printing: `props apply`, `props set`.
    #[command(subcommand)]
    pub edit: Option<crate::args_props::PropsEdit>,
    /// The package (UE1/UE2, or a UE4/UE5 .uasset/.umap), or a container of packages (.utoc, .pak, folder of paks).
    #[arg(required = true)]
    pub package: Option<PathBuf>,
    /// A package: the object (name or full path; every export when left out). A container: the package path (/Game/...).
    #[arg(value_name = "OBJECT|PACKAGE")]
    pub object: Option<String>,
    /// A container: the object in the package (name or full path; all when left out).
    #[arg(value_name = "OBJECT")]
    pub object_in_container: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ue: UeReadArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

pub use crate::args_asset::{AssetCommand, AssetRenameArgs};
pub use crate::args_export::ExportArgs;
pub use crate::args_pak::PakCreateArgs;
pub use crate::args_registry::RegistryCommand;
pub use crate::args_ue::UeReadArgs;

/// `pakrat packages`.
#[derive(Args, Debug)]
pub struct PackagesArgs {
    /// The container (.utoc).
    pub file: PathBuf,
    /// Only this package (name or path).
    pub package: Option<String>,
    /// global.utoc whose ScriptObjects chunk resolves class names
    /// (default: a global.utoc next to the container, if present).
    #[arg(long, value_name = "GLOBAL.utoc")]
    pub global: Option<PathBuf>,
    /// Also list, one per line, the package ids the container header names
    /// without a package chunk (patch containers have thousands).
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// Game folder options shared by `deps`, `cache restore` and `umod install`.
#[derive(Args, Debug, Clone)]
pub struct GameDirArgs {
    /// The game's root folder (holding System/).
    #[arg(long = "game-dir", value_name = "DIR")]
    pub game_dir: PathBuf,
    /// The ini file to read Paths from (default: found in System/).
    #[arg(long, value_name = "FILE")]
    pub ini: Option<PathBuf>,
}

/// `pakrat deps`.
#[derive(Args, Debug)]
pub struct DepsArgs {
    /// The package (a file, or a name to resolve in the game folder).
    pub package: String,
    /// The game's root folder (holding System/), or a plain folder of
    /// packages. Default: the folder of the package file.
    #[arg(long = "game-dir", value_name = "DIR")]
    pub game_dir: Option<PathBuf>,
    /// The ini file to read Paths from (default: found in System/).
    #[arg(long, value_name = "FILE")]
    pub ini: Option<PathBuf>,
    /// Print a Graphviz graph.
    #[arg(long, conflicts_with = "json")]
    pub dot: bool,
    /// Deepest level of the text tree; deeper subtrees are printed again
    /// from the left margin below it (every package still appears once).
    #[arg(long, value_name = "N", default_value_t = pakrat_system::deps::TREE_DEPTH)]
    pub max_depth: usize,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat scan`.
#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Folder to scan recursively.
    pub dir: PathBuf,
    /// Print JSON lines (one object per package, then the findings).
    #[arg(long)]
    pub json: bool,
}

/// `pakrat flags`.
#[derive(Args, Debug)]
pub struct FlagsArgs {
    /// The package.
    pub package: PathBuf,
    /// Change flags in place, e.g. `AllowDownload=false` (repeatable).
    #[arg(long = "set", value_name = "FLAG=BOOL")]
    pub set: Vec<String>,
    /// Compare with a `.upkg` file's `[Flags]` section.
    #[arg(long, value_name = "FILE")]
    pub upkg: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat compress`.
#[derive(Args, Debug)]
pub struct CompressArgs {
    /// Files to compress.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format (default: uz for UE1 packages, uz2 for UE2, uz3 for UE3).
    #[arg(long, value_parser = ["uz", "uz2", "uz3"])]
    pub format: Option<String>,
    /// .uz signature: 5678 (RLE → BWT → MTF → RLE → Huffman) or 1234 (no
    /// second RLE; what plain `ucc compress` writes).
    #[arg(long, value_parser = ["1234", "5678"], default_value = "5678")]
    pub signature: String,
    /// Output folder (default: next to each input).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Replace files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat decompress`.
#[derive(Args, Debug)]
pub struct DecompressArgs {
    /// .uz/.uz2/.uz3 files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output folder (default: next to each input).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Replace files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat package ...`: edits of UE1/UE2 packages.
#[derive(Subcommand, Debug)]
pub enum PackageCommand {
    /// Rename one name of the name table: an object, class, group or
    /// imported package name, everywhere the package uses it.
    RenameName(RenameNameArgs),
    /// Rename a package: write it under its new file name and repoint the
    /// imports of the packages in the --update folders.
    Rename(RenameArgs),
    /// Set the package GUID (a given one, or a random one).
    SetGuid(SetGuidArgs),
    /// Change package flags (as `pakrat flags --set`, with --dry-run/--backup).
    SetFlags(SetFlagsArgs),
    /// Empty the script source text of every class, as `ucc` does for
    /// release builds (the objects stay, nothing moves).
    Strip(StripArgs),
    /// Write `<Package>Classes.h`: the C++ header of the package's native
    /// classes, as the engine's `ucc make -h` wrote it (UE1 or UE2 form).
    Headers(crate::args_headers::HeadersArgs),
}

/// Options every package edit takes.
#[derive(Args, Debug, Clone, Default)]
pub struct EditArgs {
    /// Print what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Keep the original as `<file>.bak`.
    #[arg(long)]
    pub backup: bool,
    /// Write the result to this file instead of changing the package.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file or backup.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat package rename-name`.
#[derive(Args, Debug)]
pub struct RenameNameArgs {
    /// The package.
    pub package: PathBuf,
    /// The name as it is (case does not matter when unambiguous).
    pub old: String,
    /// The new name (1-63 characters; must not be a name already).
    pub new: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub edit: EditArgs,
}

/// `pakrat package rename`.
#[derive(Args, Debug)]
pub struct RenameArgs {
    /// The package.
    pub package: PathBuf,
    /// Its new name, without extension (the file keeps its extension).
    pub new_name: String,
    /// Folders whose packages import this one: their imports are repointed
    /// to the new name (searched recursively; repeatable).
    #[arg(long = "update", value_name = "DIR")]
    pub update: Vec<PathBuf>,
    /// Give the renamed package a new random GUID and generation, so that
    /// clients holding the old one in their cache download it again.
    #[arg(long)]
    pub new_guid: bool,
    /// Print what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Keep the original file and every updated package as `<file>.bak`.
    #[arg(long)]
    pub backup: bool,
    /// Replace an existing file of the new name or an existing backup.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat package set-guid`.
#[derive(Args, Debug)]
pub struct SetGuidArgs {
    /// The package.
    pub package: PathBuf,
    /// The GUID as 32 hex digits (as `info` prints it); omit with --random.
    #[arg(required_unless_present = "random", conflicts_with = "random")]
    pub guid: Option<String>,
    /// A new random GUID.
    #[arg(long)]
    pub random: bool,
    /// Also start a new generation (as the engine does when it saves a
    /// changed package).
    #[arg(long)]
    pub new_generation: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub edit: EditArgs,
}

/// `pakrat package set-flags`.
#[derive(Args, Debug)]
pub struct SetFlagsArgs {
    /// The package.
    pub package: PathBuf,
    /// Changes such as `AllowDownload=false` or `0x20=true`.
    #[arg(required = true, value_name = "FLAG=BOOL")]
    pub set: Vec<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub edit: EditArgs,
}

/// `pakrat package strip`.
#[derive(Args, Debug)]
pub struct StripArgs {
    /// The package.
    pub package: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub edit: EditArgs,
}

/// `pakrat umod ...`.
#[derive(Subcommand, Debug)]
pub enum UmodCommand {
    /// Build a UMOD from a folder holding System/Manifest.ini, System/Manifest.int
    /// and the files the manifest names.
    Create(UmodCreateArgs),
    /// Install a UMOD into a game folder and record it in System/Manifest.ini.
    Install(UmodInstallArgs),
    /// Remove an installed product, keeping files another product still uses.
    Uninstall(UmodUninstallArgs),
    /// Roll back (or complete) an install that was interrupted (Ctrl-C,
    /// kill, power cut), from the journal it left in the game folder.
    /// `install` and `uninstall` do this first by themselves.
    Recover(UmodRecoverArgs),
}

/// `pakrat umod recover`.
#[derive(Args, Debug)]
pub struct UmodRecoverArgs {
    /// The game's root folder.
    #[arg(long = "game-dir", value_name = "DIR")]
    pub game_dir: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat umod create`.
#[derive(Args, Debug)]
pub struct UmodCreateArgs {
    /// Source folder.
    pub src: PathBuf,
    /// Output UMOD.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Align each member to this many bytes (UT2004's `ucc master` uses 16).
    #[arg(long, value_name = "N")]
    pub align: Option<u32>,
    /// Copy member order, flags and layout from an existing UMOD.
    #[arg(long, value_name = "UMOD")]
    pub order_from: Option<PathBuf>,
    /// Pack the targets of symbolic links in the source folder (refused
    /// without it: a link could pull in any file of the machine).
    #[arg(long)]
    pub follow_symlinks: bool,
    /// Replace the output if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat umod install`.
#[derive(Args, Debug)]
pub struct UmodInstallArgs {
    /// The UMOD.
    pub file: PathBuf,
    /// The game's root folder.
    #[arg(long = "game-dir", value_name = "DIR")]
    pub game_dir: PathBuf,
    /// Show what would happen; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace different existing files (a backup is kept).
    #[arg(long)]
    pub force: bool,
    /// Install even if requirements are not met.
    #[arg(long)]
    pub ignore_requirements: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat umod uninstall`.
#[derive(Args, Debug)]
pub struct UmodUninstallArgs {
    /// The product name recorded at install.
    pub product: String,
    /// The game's root folder.
    #[arg(long = "game-dir", value_name = "DIR")]
    pub game_dir: PathBuf,
    /// Show what would happen; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also delete recorded files that pakrat has no size/CRC record of
    /// (products installed by the engine's Setup or an older pakrat);
    /// without it they are left in place and listed.
    #[arg(long)]
    pub remove_unrecorded: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat pak ...`.
#[derive(Subcommand, Debug)]
pub enum PakCommand {
    /// Build a .pak from a folder, laid out as UnrealPak of that version
    /// lays it out.
    #[command(disable_version_flag = true)]
    Create(PakCreateArgs),
}

/// `pakrat iostore ...`.
#[derive(Subcommand, Debug)]
pub enum IostoreCommand {
    /// Re-encode a container with other options (method, version, key,
    /// partitions); the chunks stay byte for byte the same.
    #[command(disable_version_flag = true)]
    Repack(IostoreRepackArgs),
    /// Build a container from a folder laid out like `pakrat extract`'s
    /// output, with the companion .pak beside it.
    #[command(disable_version_flag = true)]
    Create(IostoreCreateArgs),
    /// Build a patch container holding only what differs from a base one.
    #[command(disable_version_flag = true)]
    Patch(IostorePatchArgs),
}

/// How the blocks of a written container are encoded.
#[derive(Args, Debug, Clone)]
pub struct IostoreEncodeArgs {
    /// Compression: none, zlib, gzip, lz4 or zstd (Oodle cannot be encoded).
    /// Default: the source container's method (repack), else none.
    #[arg(long, value_name = "METHOD")]
    pub compress: Option<String>,
    /// Compression level (the codec's own scale; zlib: libdeflate's 0-12,
    /// default 1, or zlib's 0-9, default 6, with --match-unrealpak).
    #[arg(long, value_name = "N")]
    pub level: Option<i32>,
    /// Zlib: compress with the reference zlib at level 6, as the engine
    /// does, so the blocks match its containers byte for byte. Costs about
    /// 4x the CPU time of the default (libdeflate), for blocks about 4% smaller.
    #[arg(long)]
    pub match_unrealpak: bool,
    /// TOC version 3–10 (4.27 → 3, 5.0–5.3 → 5, 5.4 → 6, 5.5–5.8 → 8, 6.0 → 10).
    /// Default: the source's (repack), the base's, the --ue-version
    /// release's, else 8. One that contradicts --ue-version is refused.
    #[arg(long, value_name = "N")]
    pub version: Option<u8>,
    /// Split the .ucas into partitions of at most N bytes (`_s1.ucas`...).
    #[arg(long, value_name = "N")]
    pub partition_size: Option<u64>,
    /// Encrypt blocks and directory index with the key (from --aes-key or
    /// --keys; --key-guid picks one).
    #[arg(long)]
    pub encrypt: bool,
    /// Write the container unencrypted even if the source was encrypted.
    #[arg(long, conflicts_with = "encrypt")]
    pub no_encrypt: bool,
    /// TOC v10: the cipher, ecb or ctr (default: ctr for v10).
    #[arg(long, value_name = "ecb|ctr")]
    pub cipher: Option<String>,
    /// With --encrypt: the GUID of the key (default: the main key, zero GUID).
    #[arg(long, value_name = "GUID")]
    pub key_guid: Option<String>,
    /// Replace output files that exist.
    #[arg(long)]
    pub force: bool,
}

/// `pakrat iostore repack`.
#[derive(Args, Debug)]
pub struct IostoreRepackArgs {
    /// The container to re-encode (.utoc).
    pub input: PathBuf,
    /// Output .utoc (its .ucas partitions go beside it).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub enc: IostoreEncodeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat iostore create`.
#[derive(Args, Debug)]
pub struct IostoreCreateArgs {
    /// Folder laid out like `pakrat extract`'s output: zen .uasset/.umap
    /// packages with their .ubulk/.uptnl/.m.ubulk, `_chunks/<id>.<Type>`
    /// files for chunks without a path, other files for the companion .pak.
    pub src: PathBuf,
    /// Output .utoc (the .ucas and the companion .pak go beside it).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// A game container to take the version, container-header form and
    /// package store details (shader maps, localized packages, redirects) from.
    #[arg(long, value_name = "GAME.utoc")]
    pub base: Option<PathBuf>,
    /// Mount point the folder's paths hang from.
    #[arg(long = "mount", value_name = "PATH", default_value = "../../../")]
    pub mount: String,
    /// The engine release to write for (e.g. 5.4): decides the TOC,
    /// container header and companion .pak versions (4.27 to 6.0).
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// Companion .pak version (default: the base's, the --ue-version
    /// release's, else 11, or 15 with TOC v10).
    #[arg(long, value_name = "N")]
    pub pak_version: Option<u32>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub enc: IostoreEncodeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat iostore patch`.
#[derive(Args, Debug)]
pub struct IostorePatchArgs {
    /// The base container (.utoc) the patch applies to.
    pub base: PathBuf,
    /// Folder of new and changed files, laid out like `pakrat extract`'s output.
    #[arg(long, value_name = "DIR")]
    pub add: Option<PathBuf>,
    /// Remove the base's files matching these globs (may be repeated).
    #[arg(long, value_name = "GLOB")]
    pub remove: Vec<String>,
    /// Output .utoc, e.g. `Game-Windows_1_P.utoc`.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Mount point the folder's paths hang from.
    #[arg(long = "mount", value_name = "PATH", default_value = "../../../")]
    pub mount: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub enc: IostoreEncodeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat zen ...`.
#[derive(Subcommand, Debug)]
pub enum ZenCommand {
    /// Write a container's zen packages as legacy .uasset/.umap + .uexp
    /// (+ .ubulk/.uptnl/.m.ubulk) files that editors and asset tools open.
    ToLegacy(ZenToLegacyArgs),
    /// Turn cooked legacy packages (.uasset/.umap + .uexp) into zen
    /// packages: files for `iostore create`, or a container at once.
    #[command(disable_version_flag = true)]
    FromLegacy(ZenFromLegacyArgs),
}

/// `pakrat zen to-legacy`.
#[derive(Args, Debug)]
pub struct ZenToLegacyArgs {
    /// The container (.utoc) holding the zen packages, or a folder of loose
    /// zen packages (as `extract` writes them, or `.uzenasset` files; needs
    /// --container-header).
    pub file: PathBuf,
    /// Only packages whose name (`/Game/Maps/Arena`) or path matches one of
    /// these globs (case-insensitive).
    pub globs: Vec<String>,
    /// Output folder (laid out like `pakrat extract`'s).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// global.utoc whose ScriptObjects resolve script imports (default: a
    /// global.utoc next to the container or one folder up); for a folder
    /// also a folder holding its raw chunks (ScriptObjects*.bin, or UE4's
    /// LoaderInitialLoadMeta*, LoaderGlobalNames*, LoaderGlobalNameHashes*).
    #[arg(long, value_name = "GLOBAL.utoc|DIR")]
    pub global: Option<PathBuf>,
    /// Other containers that hold packages the converted ones import (the
    /// game's own, a base mod...); may be repeated.
    #[arg(long = "with", value_name = "OTHER.utoc")]
    pub with: Vec<PathBuf>,
    /// A folder of loose zen packages: the container header (a raw
    /// ContainerHeader chunk, e.g. from `extract`'s `_chunks/`) whose store
    /// entries describe them.
    #[arg(long, value_name = "FILE")]
    pub container_header: Option<PathBuf>,
    /// The engine release that cooked the container (e.g. 5.8); needed when
    /// the container does not tell it (unversioned packages; 5.7 vs 5.8).
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// Replace files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}

/// `pakrat zen from-legacy`.
#[derive(Args, Debug)]
pub struct ZenFromLegacyArgs {
    /// Folder of cooked legacy packages (with their .uexp and bulk files);
    /// other files are carried along unchanged.
    pub src: PathBuf,
    /// Write the zen packages and the other files into this folder.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        conflicts_with = "into"
    )]
    pub output: Option<PathBuf>,
    /// Build a container (.utoc + .ucas + companion .pak) at once, as
    /// `iostore create` does from the converted folder.
    #[arg(long, value_name = "MOD_P.utoc")]
    pub into: Option<PathBuf>,
    /// global.utoc of the game: script imports are checked against its
    /// ScriptObjects (a missing class is then an error, not a broken mod).
    #[arg(long, value_name = "GLOBAL.utoc")]
    pub global: Option<PathBuf>,
    /// The engine release that cooked the packages (e.g. 5.4): the layout
    /// of unversioned ones, and with --into the TOC, container header and
    /// companion .pak versions.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// With --into: a game container to take the version and package store
    /// details from (as `iostore create --base`).
    #[arg(long, value_name = "GAME.utoc", requires = "into")]
    pub base: Option<PathBuf>,
    /// With --into: mount point the folder's paths hang from.
    #[arg(long = "mount", value_name = "PATH", default_value = "../../../")]
    pub mount: String,
    /// With --into: companion .pak version (default: the base's, the
    /// --ue-version release's, else 11, or 15 with TOC v10).
    #[arg(long, value_name = "N", requires = "into")]
    pub pak_version: Option<u32>,
    /// With --into: also write the converted packages' asset registry
    /// entries (asset, class, package flags, package data, hard
    /// dependencies; no tags) to OUT.AssetRegistry.bin beside the
    /// container; with GAME.bin, that registry merged with them (and its
    /// version). Without GAME.bin the version is --ue-version's (5.8, 6.0).
    #[arg(long, value_name = "GAME.bin", num_args = 0..=1, requires = "into")]
    pub registry: Option<Option<PathBuf>>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub enc: IostoreEncodeArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat cache ...`.
#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// List cache.ini entries and check every .uxx file.
    List(CacheListArgs),
    /// Copy cached packages back under their original names.
    Restore(CacheRestoreArgs),
}

/// `pakrat cache list`.
#[derive(Args, Debug)]
pub struct CacheListArgs {
    /// The Cache folder.
    pub cache_dir: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat cache restore`.
#[derive(Args, Debug)]
pub struct CacheRestoreArgs {
    /// The Cache folder.
    pub cache_dir: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub game: GameDirArgs,
    /// Show what would happen; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace different existing packages.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
