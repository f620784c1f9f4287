//! Install instructions never send users to a package index for a name this repository does not
//! publish there. `ankita` on PyPI is an unrelated project (pip would download and run a
//! stranger's `setup.py`), and neither `ankita-context` nor the npm package `ankita` is published
//! yet: every document and every package's metadata must name the files a clone builds
//! (`target/wheels/ankita_context-*.whl`, `"ankita-context[langchain] @ file://…"`, the npm
//! tarball) instead.
//!
//! The check reads every text file of the repository (documents, scripts, sources, package
//! manifests) outside build outputs and test data, finds each installer command (`pip install`,
//! `python -m pip install`, `uv add`, `npm install`, …) in code blocks, inline code and
//! docstrings, and fails on each argument that names one of those packages by name alone.

use std::path::{Path, PathBuf};

/// Package names an index would resolve to someone else's package (or to nothing yet).
const PYTHON_NAMES: &[&str] = &["ankita", "ankita-context"];
const NODE_NAMES: &[&str] = &["ankita"];

/// Directories that hold build outputs, installed dependencies or test inputs, not instructions.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "target",
    "node_modules",
    ".venv",
    "__pycache__",
    "prebuilds",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
];
const SKIPPED_PATHS: &[&str] = &["tests/fixtures", "fuzz/corpus", "fuzz/artifacts"];
const TEXT_EXTENSIONS: &[&str] = &[
    "md", "rst", "txt", "toml", "py", "pyi", "js", "mjs", "cjs", "ts", "sh", "cfg", "yml", "yaml",
    "rs", "c", "h", "hpp", "cpp", "in", "json",
];
const TEXT_NAMES: &[&str] = &["Makefile", "Dockerfile", "PKG-INFO", "METADATA", "run"];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ecosystem {
    Python,
    Node,
}

/// `pip install`, `pip3 install`, `python -m pip install`, `uv pip install`, `uv add`,
/// `poetry add`, `pipx install`; `npm install`/`i`/`add`, `yarn add`, `pnpm add`/`install`,
/// `bun add`/`install`.
fn installer(tool: &str, verb: &str) -> Option<Ecosystem> {
    match (tool, verb) {
        ("pip" | "pip3" | "pipx", "install") | ("uv" | "poetry", "add") => Some(Ecosystem::Python),
        ("npm", "install" | "i" | "add")
        | ("yarn", "add")
        | ("pnpm" | "bun", "add" | "install") => Some(Ecosystem::Node),
        _ => None,
    }
}

/// Options whose value is the next word (`-r requirements.txt`, `--index-url URL`): skipped.
const OPTIONS_WITH_VALUE: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-e",
    "--editable",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--python",
    "--prefix-dir",
];

/// The installer commands of one line, each as the index names it installs by name alone.
fn index_installs(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    // Inline code (`…`, ``…``) is a command of its own; a line without backticks is one.
    for segment in line.split('`') {
        // A shell comment ends the command; so do the shell's separators.
        let segment = match segment.find(" #") {
            Some(at) => &segment[..at],
            None => segment,
        };
        let words: Vec<&str> = segment.split_whitespace().collect();
        let mut i = 0;
        while i + 1 < words.len() {
            let Some(ecosystem) = installer(unquote(words[i]), unquote(words[i + 1])) else {
                i += 1;
                continue;
            };
            // Prose ("the wheel to pip install, then …"): the sentence goes on, no command.
            if words[i + 1].ends_with([',', '.', ':']) {
                i += 2;
                continue;
            }
            // `--no-index`: pip reads only the given files and --find-links (the built wheels).
            let end = (words[i + 2..].iter())
                .position(|w| ["&&", "||", "|", ";"].contains(w))
                .map_or(words.len(), |p| i + 2 + p);
            if words[i + 2..end].iter().any(|w| unquote(w) == "--no-index") {
                i = end;
                continue;
            }
            let mut j = i + 2;
            // `uv pip install`: the installer word pair is `pip install`, found at the next step.
            while j < words.len() {
                let word = words[j];
                if ["&&", "||", "|", ";", ")", "\\"].contains(&word) {
                    break;
                }
                let arg = unquote(word);
                let ends_command = word.ends_with([';', ')', ',', '.']);
                if OPTIONS_WITH_VALUE.contains(&arg) {
                    j += 2;
                    continue;
                }
                if arg.starts_with('-') || arg.is_empty() {
                    j += 1;
                    continue;
                }
                // `name @ file://…` and `name@file://…` are direct references, not the index.
                let direct = words
                    .get(j + 1)
                    .is_some_and(|next| unquote(next).starts_with('@'))
                    || arg.ends_with('@');
                if let Some(name) = index_name(arg, ecosystem) {
                    if !direct {
                        found.push(format!("{name} (from `{}`)", segment.trim()));
                    }
                }
                j += if direct { 3 } else { 1 };
                if ends_command {
                    break;
                }
            }
            i = j;
        }
    }
    found
}

fn unquote(word: &str) -> &str {
    word.trim_matches(|c| matches!(c, '"' | '\'' | ',' | ';' | ')' | '('))
}

/// The package an argument asks the index for, when it is one of this repository's names.
fn index_name(arg: &str, ecosystem: Ecosystem) -> Option<&'static str> {
    let looks_like_path = arg.contains('/')
        || arg.starts_with('.')
        || arg.starts_with('~')
        || arg.starts_with("file:")
        || arg.ends_with(".whl")
        || arg.ends_with(".tgz")
        || arg.ends_with(".tar.gz")
        || arg.ends_with(".zip");
    match ecosystem {
        Ecosystem::Python => {
            // A requirement: NAME, then extras, a version specifier, a marker or `@ URL`.
            let end = arg
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .unwrap_or(arg.len());
            let (name, rest) = arg.split_at(end);
            if rest.contains('@') || (looks_like_path && !rest.starts_with('[')) {
                return None;
            }
            let name = name.to_ascii_lowercase().replace(['_', '.'], "-");
            PYTHON_NAMES.iter().copied().find(|known| *known == name)
        }
        Ecosystem::Node => {
            if looks_like_path {
                return None;
            }
            // `name@version` or `name@tag` still comes from the registry.
            let name = match arg.strip_prefix('@') {
                Some(_) => arg,
                None => arg.split('@').next().unwrap_or(arg),
            };
            NODE_NAMES.iter().copied().find(|known| *known == name)
        }
    }
}

fn text_files(root: &Path, dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) && !SKIPPED_PATHS.contains(&relative.as_str())
            {
                text_files(root, &path, into);
            }
            continue;
        }
        let extension = path.extension().map(|e| e.to_string_lossy().into_owned());
        let is_text = TEXT_NAMES.contains(&name.as_str())
            || extension.is_some_and(|e| TEXT_EXTENSIONS.contains(&e.as_str()));
        // Lock files list resolved dependencies, not instructions; this file lists examples.
        let skipped = name.ends_with("-lock.json") || relative == "tests/install_texts.rs";
        if is_text && !skipped {
            into.push(path);
        }
    }
}

#[test]
fn no_document_installs_an_unbuilt_package_from_an_index() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    text_files(root, root, &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("bindings/python/README.md")),
        "the walk reaches the Python README"
    );
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            for install in index_installs(line) {
                problems.push(format!(
                    "{}:{}: installs {install} from an index; name the built wheel or tarball",
                    file.strip_prefix(root).unwrap().display(),
                    number + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_python_metadata_names_ankita_context() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pyproject = std::fs::read_to_string(root.join("bindings/python/pyproject.toml")).unwrap();
    let mut section = String::new();
    let mut name = None;
    for line in pyproject.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if section == "[project]" && line.starts_with("name") {
            name = line.split('"').nth(1).map(str::to_string);
        }
        // Dependencies (and extras) that name the project itself resolve through the index.
        let in_dependencies = section == "[project.optional-dependencies]"
            || (section == "[project]" && line.starts_with("dependencies"));
        if in_dependencies {
            for requirement in line.split('"').skip(1).step_by(2) {
                let name = index_name(requirement, Ecosystem::Python);
                assert_eq!(name, None, "pyproject.toml: the dependency {requirement:?}");
            }
        }
    }
    assert_eq!(
        name.as_deref(),
        Some("ankita-context"),
        "bindings/python/pyproject.toml's name"
    );
    let readme = std::fs::read_to_string(root.join("bindings/python/README.md")).unwrap();
    assert!(
        readme.contains("pip install target/wheels/ankita_context-")
            && readme.contains("ankita-context[langchain] @ file://")
            && readme.contains("ankita-context[pydantic-ai] @ file://"),
        "the Python README (the wheel's long description) says how to install the built wheel"
    );
    let root_readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        root_readme.contains("pip install target/wheels/ankita_context-")
            && root_readme.contains("npm install /path/to/ankita/bindings/node/ankita-"),
        "README.md says how to install the built wheel and the npm tarball"
    );
}

#[test]
fn the_check_finds_index_installs_and_passes_built_files() {
    let flagged = [
        "pip install ankita",
        "pip install \"ankita[langchain]\"",
        "`pip install \"ankita[pydantic-ai]\"`. Then",
        "``pip install \"ankita[langchain]\"``",
        "python3 -m pip install -U ankita==0.1.0",
        "pip install --quiet ankita_context",
        "pip install ankita-context  # from PyPI",
        "uv pip install Ankita>=0.1",
        "uv add ankita",
        "npm install ankita",
        "npm i ankita@0.1.0",
        "cd app && yarn add ankita",
        "pip install -r requirements.txt ankita[langchain]",
        "pip install --no-index x.whl && pip install ankita",
    ];
    for line in flagged {
        assert_eq!(index_installs(line).len(), 1, "{line}");
    }
    let passed = [
        "pip install target/wheels/ankita_context-*_$(uname -m).whl",
        "pip install \"ankita-context[langchain] @ file://$(realpath target/wheels/ankita_context-*.whl)\"",
        "pip install ankita-context@file:///tmp/ankita_context-0.1.0.whl",
        "pip install ./bindings/python      # builds with Rust and maturin",
        "pip install 'target/wheels/ankita_context-0.1.0-cp39-abi3-x.whl[langchain]'",
        "npm install ./ankita-0.1.0.tgz        # the packed package",
        "npm install /path/to/ankita-0.1.0.tgz",
        "npm install --save-dev json-schema-to-ts",
        "pip install \"maturin>=1.8,<2\" \"pytest>=8\" ruff",
        "import ankita                                   # pip install target/wheels/x.whl",
        "make prebuilds && (cd bindings/node && npm pack)",
        "the wheel to pip install, then import ankita",
        "pip install --only-binary :all: --no-index --find-links target/dist/wheels ankita-context",
    ];
    for line in passed {
        assert_eq!(index_installs(line), Vec::<String>::new(), "{line}");
    }
}
