//! `pakrat export`'s options (UE1/UE2 packages, and UE4/UE5 packages,
//! paks, containers and folders).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::args::{JsonArg, UeReadArgs};

/// Image file format of exported textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImageFormat {
    /// PNG (8 or 16 bits per channel as the source allows).
    Png,
    /// OpenEXR (floating point; the default for HDR formats).
    Exr,
    /// DDS with every mip, undecoded.
    Dds,
}

/// How faces and slices are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FaceLayout {
    /// Side by side in one row.
    Strip,
    /// Cube faces as a cross (one per cube, stacked).
    Cross,
}

/// Container of exported meshes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MeshFormat {
    /// Binary glTF: one file, skins embedded.
    Glb,
    /// JSON glTF with a `.bin` buffer and the skins as PNG files beside it.
    Gltf,
    /// ActorX: `.psk` for meshes, `.psa` for animations (the Blender
    /// psk/psa importer reads them).
    Psk,
    /// UE1 vertex meshes: the editor's import pair `Name_d.3d` + `Name_a.3d`
    /// and the `#exec` lines that import them (`Name.uc`).
    #[value(name = "3d")]
    Unreal3d,
}

/// `pakrat export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The input: a UE1/UE2 package; or a UE4/UE5 .uasset/.umap, .pak,
    /// .utoc, or a folder of them.
    pub package: PathBuf,
    /// UE1/UE2: only these objects (name or full path). UE4/UE5: only
    /// packages whose path (/Game/A/B) or file path matches one of these
    /// globs (case-insensitive).
    #[arg(value_name = "OBJECT|GLOB")]
    pub objects: Vec<String>,
    /// Output folder.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Only objects of these classes (comma-separated). UE1/UE2:
    /// Texture,Sound,Music,TextBuffer,Mesh (Mesh, LodMesh, StaticMesh,
    /// SkeletalMesh, VertMesh, MeshAnimation). UE4/UE5: Texture2D, TextureCube,
    /// Texture2DArray, TextureCubeArray, VolumeTexture, TextureLightProfile
    /// … (Texture for all), SoundWave (Sound), StaticMesh, SkeletalMesh,
    /// Skeleton, AnimSequence (Mesh).
    #[arg(long, value_delimiter = ',')]
    pub class: Vec<String>,
    /// UE1/UE2 textures: export every mip level, not only the first.
    #[arg(long)]
    pub mips: bool,
    /// UE1/UE2 classes: write `Classes/<Class>.uc` decompiled from the
    /// bytecode (natives from the package, the `--natives` entries, the
    /// packages it imports found beside it as `<Name>.u`, a game folder's
    /// `[Core.System] Paths`, then pakrat's built-in tables: natives of
    /// UT2004's XInterface and Deus Ex's packages, types (classes,
    /// properties, functions, enums) of UT2004's, UT's and Deus Ex's
    /// packages the corpus lacks); kept source text then goes to
    /// `KeptSource/Classes/<Class>.uc`.
    #[arg(long)]
    pub decompile: bool,
    /// With `--decompile`: packages whose natives and classes to use, in
    /// order, before those found beside the input: a file (any name, e.g.
    /// `ut2004_Core.u`) or a folder (`<Name>.u` of each import).
    #[arg(long, value_name = "PATH", num_args = 1.., requires = "decompile")]
    pub natives: Vec<PathBuf>,
    /// Meshes: glTF container (default glb), ActorX psk/psa (UE1/UE2, and
    /// UE4/UE5 skeletal meshes), or the UE1 editor's `_d.3d`/`_a.3d` pair.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub mesh_format: Option<MeshFormat>,
    /// UE2 and UE4/UE5 skeletal meshes: every LOD model (one mesh each),
    /// not only LOD 0 (UE4/UE5: every LOD from `--lod` on).
    #[arg(long)]
    pub all_lods: bool,
    /// UE4/UE5 static and skeletal meshes: the LOD to export (default 0,
    /// the finest).
    #[arg(long, value_name = "N")]
    pub lod: Option<usize>,
    /// UE4/UE5 textures: the file format (default: PNG, EXR for HDR pixel
    /// formats).
    #[arg(long, value_enum)]
    pub format: Option<ImageFormat>,
    /// UE4/UE5 textures: the mip to export (0 = largest; PNG/EXR only).
    #[arg(long, value_name = "N")]
    pub mip: Option<usize>,
    /// UE4/UE5 cubes, arrays, volumes: one image of all faces/slices
    /// instead of one file each.
    #[arg(long, value_enum)]
    pub layout: Option<FaceLayout>,
    /// Replace files that already exist.
    #[arg(long)]
    pub force: bool,
    /// UE4/UE5: other containers (.utoc) or paks holding packages the
    /// exported ones use (a mesh's materials and textures, a mod's base
    /// game): looked in, not exported. May be repeated.
    #[arg(long = "with", value_name = "OTHER.utoc|.pak")]
    pub with: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ue: UeReadArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
