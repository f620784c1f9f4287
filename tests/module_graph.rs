//! No module cycle and no long file, in the library and in the bindings: each module's
//! references to the others are edges, and a cycle among them fails with the modules and the
//! names that tie them.
//!
//! - The library (src/) and the Python extension's Rust (bindings/python/src, crate root
//!   lib.rs): `crate::a::b` and `super::c` outside comments and tests.
//! - The Node package's modules (index.js, lib/*.js): `import … from "./x.js"` and
//!   `export … from "./x.js"` (a `#x` import is each file the package's `imports` maps it to),
//!   and `import("./x.js")` in code (not in a JSDoc type).
//! - The Python package's modules (bindings/python/python/ankita/*.py, and its native module
//!   `_ankita` by its stub): `from . import x`, `from .x import y`, `from ankita.x import y`,
//!   `import ankita.x`. Every import counts, at the top, under `if TYPE_CHECKING:` or inside a
//!   function: deferring an import hides a cycle from the interpreter, not from a reader, who
//!   has to know both modules at once.
//!
//! Each of these files (a Rust file before its tests), and the Node package's declarations
//! (index.d.ts, types/*.d.ts), holds at most 800 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under src (`a/b.rs` and `a/b/mod.rs` are `a::b`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The file's code before its tests, without comments.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths written after `crate::` or `super::` in `code`: `(prefix, [segments])`, with a
/// braced list (`crate::a::{b, c::D}`) read as each of its items.
fn references(code: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    for prefix in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut path = Vec::new();
            let mut tail = rest;
            loop {
                let end = tail
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len());
                if end == 0 {
                    if let Some(list) = tail.strip_prefix('{') {
                        let close = list.find('}').unwrap_or(list.len());
                        for item in list[..close].split(',') {
                            let mut item_path = path.clone();
                            item_path.extend(
                                item.trim()
                                    .split("::")
                                    .map(|s| s.trim().to_owned())
                                    .filter(|s| !s.is_empty()),
                            );
                            out.push((prefix_name(prefix), item_path));
                        }
                    }
                    break;
                }
                path.push(tail[..end].to_owned());
                tail = &tail[end..];
                match tail.strip_prefix("::") {
                    Some(next) => tail = next,
                    None => {
                        out.push((prefix_name(prefix), path.clone()));
                        break;
                    }
                }
            }
        }
    }
    out
}

fn prefix_name(prefix: &str) -> &'static str {
    if prefix == "crate::" {
        "crate"
    } else {
        "super"
    }
}

/// A module graph: each module's edges to the modules it uses, with the names that tie them.
#[derive(Default)]
struct Graph {
    modules: BTreeSet<String>,
    edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl Graph {
    fn tie(&mut self, from: &str, to: &str, name: &str) {
        self.edges
            .entry(from.to_owned())
            .or_default()
            .entry(to.to_owned())
            .or_default()
            .insert(name.to_owned());
    }

    fn uses(&self, from: &str, to: &str) -> bool {
        self.edges.get(from).is_some_and(|e| e.contains_key(to))
    }

    /// Every cycle, each edge in it with the names that tie its ends; empty when there is none.
    fn cycles(&self) -> String {
        let nodes: Vec<&String> = self.modules.iter().collect();
        let index_of = |m: &String| nodes.iter().position(|n| *n == m);
        let adjacency: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| {
                self.edges
                    .get(*n)
                    .map(|e| e.keys().filter_map(index_of).collect())
                    .unwrap_or_default()
            })
            .collect();
        let mut report = String::new();
        for cycle in strongly_connected(&adjacency)
            .iter()
            .filter(|c| c.len() > 1)
        {
            report += "cycle:\n";
            for &a in cycle {
                for (to, names) in self.edges.get(nodes[a]).into_iter().flatten() {
                    if index_of(to).is_some_and(|b| cycle.contains(&b)) {
                        let names = names.iter().cloned().collect::<Vec<_>>().join(", ");
                        report += &format!("  {} -> {to}: {names}\n", nodes[a]);
                    }
                }
            }
        }
        report
    }
}

/// The module graph of the Rust crate whose root is `src/lib.rs` (modules written `a::b`, the
/// root `crate`), without the files under `src/<skip>`.
fn rust_graph(src: &Path, skip: Option<&str>) -> Graph {
    let mut paths = Vec::new();
    files(src, &mut paths);
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| skip.is_none_or(|skip| !p.strip_prefix(src).unwrap().starts_with(skip)))
        .collect();
    let modules: BTreeSet<Vec<String>> = paths
        .iter()
        .map(|p| module_of(p.strip_prefix(src).unwrap()))
        .collect();
    let name = |m: &[String]| {
        if m.is_empty() {
            "crate".to_owned()
        } else {
            m.join("::")
        }
    };
    let mut graph = Graph {
        modules: modules.iter().map(|m| name(m)).collect(),
        ..Graph::default()
    };
    let reexports = root_reexports(&src.join("lib.rs"));
    for path in &paths {
        let from = module_of(path.strip_prefix(src).unwrap());
        let text = std::fs::read_to_string(path).unwrap();
        for (prefix, segments) in references(&code(&text)) {
            // A name the crate root re-exports (`crate::Error`) is a use of the module that
            // defines it: the root's `pub use` hides no edge.
            let segments = match segments.first().and_then(|first| reexports.get(first)) {
                Some(defined) if prefix == "crate" => {
                    let mut resolved = defined.clone();
                    resolved.extend(segments.iter().skip(1).cloned());
                    resolved
                }
                _ => segments,
            };
            let mut full = if prefix == "crate" {
                Vec::new()
            } else {
                // `super` of a/b.rs is a; of a/b/mod.rs (module a::b) it is a too.
                let mut parent = from.clone();
                parent.pop();
                parent
            };
            full.extend(segments.iter().cloned());
            // The longest module the path names.
            let to = (1..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| modules.contains(m));
            let Some(to) = to else { continue };
            // A module and the modules inside it are one unit here: a parent declares and
            // re-exports its children.
            if to == from || to.starts_with(&from) || from.starts_with(&to) {
                continue;
            }
            let tie = segments.last().cloned().unwrap_or_default();
            graph.tie(&name(&from), &name(&to), &tie);
        }
    }
    graph
}

/// The names the crate root (`lib.rs`) re-exports, each with its path (`Error` ->
/// `[error, Error]`): its `pub use a::b::X;` and `pub use a::{X, Y};` statements.
fn root_reexports(lib: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(lib).unwrap_or_default();
    let mut out = BTreeMap::new();
    for statement in code(&text).split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim().trim_start_matches("crate::");
        let (head, items): (&str, Vec<&str>) = match path.find('{') {
            Some(open) => (
                path[..open].trim_end_matches("::"),
                path[open + 1..].trim_end_matches('}').split(',').collect(),
            ),
            None => match path.rfind("::") {
                Some(at) => (&path[..at], vec![&path[at + 2..]]),
                None => continue,
            },
        };
        for item in items {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            // `a::b as c` is reached by `c`.
            let (inner, name) = match item.split_once(" as ") {
                Some((inner, alias)) => (inner.trim(), alias.trim()),
                None => (item, item.rsplit("::").next().unwrap_or(item)),
            };
            let mut full: Vec<String> = head.split("::").map(str::to_owned).collect();
            full.extend(inner.split("::").map(|s| s.trim().to_owned()));
            out.insert(name.to_owned(), full);
        }
    }
    out
}

#[test]
fn a_use_through_the_crate_roots_reexports_is_the_defining_modules() {
    let dir = std::env::temp_dir().join(format!("module-graph-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("b")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub use b::inner::{Thing, Other as Alias};\npub use a::Top;\n",
    );
    write(
        "a.rs",
        "pub struct Top;\npub fn f() -> crate::Thing { crate::Alias }\n",
    );
    write("b.rs", "pub mod inner;\n");
    write(
        "b/inner.rs",
        "pub struct Thing;\npub fn g(_: crate::Top) {}\n",
    );
    let graph = rust_graph(&src, None);
    let report = graph.cycles();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(graph.uses("a", "b::inner") && graph.uses("b::inner", "a"));
    assert!(report.contains("a -> b::inner: Other, Thing"), "{report}");
}

#[test]
fn the_library_has_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The library's modules (the command line is a crate of its own).
    let graph = rust_graph(&src, Some("bin"));
    let report = graph.cycles();
    assert!(report.is_empty(), "module cycles in src/:\n{report}");
    // The graph was read: the pipeline's modules depend on each other as they should.
    assert!(graph.uses("trim", "trimmer"));
}

#[test]
fn the_python_extension_has_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python/src");
    let graph = rust_graph(&src, None);
    let report = graph.cycles();
    assert!(
        report.is_empty(),
        "module cycles in bindings/python/src:\n{report}"
    );
    assert!(graph.uses("trim", "convert") && graph.uses("trim", "tail"));
}

/// The Node package's module files: index.js and lib/*.js.
fn node_files() -> Vec<PathBuf> {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
    let mut out = vec![package.join("index.js")];
    for entry in std::fs::read_dir(package.join("lib")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The static imports and re-exports of a JavaScript module, `(specifier, [names])`: the names
/// in braces (`b as c` is `b`), `*` for a namespace, `default` for a default import, none for
/// an import for its side effects; and `import("./x")` in code, named `import()`.
fn js_imports(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut k = 0;
    while k < lines.len() {
        let line = lines[k];
        k += 1;
        let starts = line.starts_with("import ")
            || line.starts_with("import{")
            || line.starts_with("export {")
            || line.starts_with("export *");
        if !starts {
            // A dynamic import in code (a JSDoc type's `import("…")` is in a comment).
            let trimmed = line.trim_start();
            if !(trimmed.starts_with('*') || trimmed.starts_with("/*") || trimmed.starts_with("//"))
            {
                let mut rest = line;
                while let Some(at) = rest.find("import(") {
                    rest = &rest[at + "import(".len()..];
                    if let Some(specifier) = quoted(rest) {
                        out.push((specifier, vec!["import()".to_owned()]));
                    }
                }
            }
            continue;
        }
        // The statement, to its `;` or its specifier's closing quote.
        let mut statement = line.to_owned();
        while !statement.trim_end().ends_with(';') && !ends_quoted(&statement) && k < lines.len() {
            statement.push(' ');
            statement.push_str(lines[k]);
            k += 1;
        }
        let (clause, specifier) = match statement.find(" from ") {
            Some(at) => (&statement[..at], quoted(&statement[at + " from ".len()..])),
            // `import "./x.js";`, or `export { a };` (no module)
            None => ("", quoted(statement.trim_start_matches("import"))),
        };
        let Some(specifier) = specifier else { continue };
        let clause = clause
            .trim_start_matches("import")
            .trim_start_matches("export")
            .trim();
        let mut names = Vec::new();
        let first = clause.split([',', '{']).next().unwrap_or("").trim();
        if !first.is_empty() && !first.starts_with('*') {
            names.push("default".to_owned());
        }
        if clause.starts_with('*') {
            names.push("*".to_owned());
        }
        if let (Some(open), Some(close)) = (clause.find('{'), clause.rfind('}')) {
            for item in clause[open + 1..close].split(',') {
                let item = item.trim().trim_start_matches("type ");
                if let Some(name) = item.split_whitespace().next() {
                    names.push(name.to_owned());
                }
            }
        }
        out.push((specifier, names));
    }
    out
}

/// The string literal `text` starts with (after blanks), or `None`.
fn quoted(text: &str) -> Option<String> {
    let text = text.trim_start();
    let quote = text
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let body = &text[1..];
    Some(body[..body.find(quote)?].to_owned())
}

/// Whether an import statement's text holds its whole specifier.
fn ends_quoted(statement: &str) -> bool {
    statement
        .find(" from ")
        .is_some_and(|at| quoted(&statement[at + " from ".len()..]).is_some())
}

/// The Node package's module graph: modules named by their path in the package.
fn node_graph() -> Graph {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(package.join("package.json")).unwrap())
            .unwrap();
    let files = node_files();
    let name = |path: &Path| {
        path.strip_prefix(&package)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut graph = Graph {
        modules: files.iter().map(|p| name(p)).collect(),
        ..Graph::default()
    };
    for path in &files {
        let from = name(path);
        let text = std::fs::read_to_string(path).unwrap();
        for (specifier, names) in js_imports(&text) {
            let targets: Vec<PathBuf> = if specifier.starts_with('#') {
                // A subpath import: every file it maps to, under any condition.
                let mut targets = Vec::new();
                collect_strings(&manifest["imports"][&specifier], &mut targets);
                assert!(
                    !targets.is_empty(),
                    "{from}: {specifier} is not in package.json"
                );
                targets.iter().map(|t| package.join(t)).collect()
            } else if specifier.starts_with('.') {
                vec![path.parent().unwrap().join(&specifier)]
            } else {
                continue; // another package, or a node: builtin
            };
            let names = if names.is_empty() {
                "(its side effects)".to_owned()
            } else {
                names.join(", ")
            };
            for target in targets {
                graph.tie(&from, &name(&normalise(&target)), &names);
            }
        }
    }
    graph
}

/// Every string in a JSON value (the files of a package.json `imports` entry).
fn collect_strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        serde_json::Value::Array(list) => list.iter().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// `a/./b/../c` as `a/c`.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_node_package_has_no_module_cycle() {
    let graph = node_graph();
    let report = graph.cycles();
    assert!(
        report.is_empty(),
        "module cycles in bindings/node:\n{report}"
    );
    // The graph was read: imports, re-exports and the `#native` import are edges.
    assert!(graph.uses("index.js", "lib/tail-trim.js"));
    assert!(graph.uses("index.js", "lib/batch.js"));
    assert!(graph.uses("lib/formats.js", "lib/native.js"));
    assert!(graph.uses("lib/formats.js", "lib/native-browser.js"));
}

/// The Python package's module files: bindings/python/python/ankita/*.py, and the stub of its
/// native module (`_ankita.pyi`).
fn python_files() -> Vec<PathBuf> {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python/python/ankita");
    let mut out: Vec<PathBuf> = std::fs::read_dir(package)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py" || e == "pyi"))
        .collect();
    out.sort();
    out
}

/// The code of a Python line (`line`, starting in a triple-quoted string when `open` says
/// which): its text outside docstrings and other triple-quoted strings, and before a comment.
fn python_code(line: &str, open: &mut Option<&'static str>) -> String {
    let mut rest = line;
    let mut code = String::new();
    loop {
        match *open {
            Some(quote) => match rest.find(quote) {
                Some(at) => {
                    rest = &rest[at + 3..];
                    *open = None;
                }
                None => break,
            },
            None => {
                let next = ["\"\"\"", "'''"]
                    .into_iter()
                    .filter_map(|q| rest.find(q).map(|at| (at, q)))
                    .min();
                let Some((at, quote)) = next else {
                    code.push_str(rest);
                    break;
                };
                code.push_str(&rest[..at]);
                rest = &rest[at + 3..];
                *open = Some(quote);
            }
        }
    }
    code.split('#').next().unwrap_or("").to_owned()
}

/// The package's modules a Python module imports, `(module, [names])`: `from . import a, b`
/// (each a module of the package, else a name of `__init__`), `from .x import y`,
/// `from ankita.x import y`, `import ankita.x`, at any indentation. `modules` are the package's
/// module names (`__init__` is the package itself).
fn python_imports(text: &str, modules: &BTreeSet<String>) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut open = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut k = 0;
    while k < lines.len() {
        let mut statement = python_code(lines[k], &mut open);
        k += 1;
        // A parenthesised list of names goes on to its closing parenthesis; a backslash joins.
        while (statement.contains('(') && !statement.contains(')')
            || statement.trim_end().ends_with('\\'))
            && k < lines.len()
        {
            statement = statement.trim_end().trim_end_matches('\\').to_owned();
            statement.push(' ');
            statement.push_str(&python_code(lines[k], &mut open));
            k += 1;
        }
        let statement = statement.replace(['(', ')'], " ");
        let words: Vec<&str> = statement.split_whitespace().collect();
        let names = |list: &[&str]| -> Vec<String> {
            list.join(" ")
                .split(',')
                .filter_map(|item| item.split_whitespace().next())
                .map(str::to_owned)
                .collect()
        };
        match words.as_slice() {
            ["from", module, "import", list @ ..] => {
                let relative = module.strip_prefix('.').filter(|m| !m.starts_with('.'));
                let absolute = (*module == "ankita")
                    .then_some("")
                    .or_else(|| module.strip_prefix("ankita."));
                let Some(within) = relative.or(absolute) else {
                    continue;
                };
                if within.is_empty() {
                    // `from . import a, b`: submodules, or names of the package itself.
                    for name in names(list) {
                        let module = if modules.contains(&name) {
                            name.clone()
                        } else {
                            "__init__".to_owned()
                        };
                        out.push((module, vec![name]));
                    }
                } else {
                    let module = within.split('.').next().unwrap_or(within);
                    out.push((module.to_owned(), names(list)));
                }
            }
            ["import", list @ ..] => {
                for item in names(list) {
                    if let Some(module) = item.strip_prefix("ankita.") {
                        let module = module.split('.').next().unwrap_or(module).to_owned();
                        out.push((module.clone(), vec![module]));
                    } else if item == "ankita" {
                        out.push(("__init__".to_owned(), vec![item]));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The Python package's module graph: modules named as their file without its extension.
fn python_graph() -> Graph {
    let files = python_files();
    let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    let mut graph = Graph {
        modules: files.iter().map(|p| stem(p)).collect(),
        ..Graph::default()
    };
    let modules = graph.modules.clone();
    for path in &files {
        let from = stem(path);
        let text = std::fs::read_to_string(path).unwrap();
        for (to, names) in python_imports(&text, &modules) {
            if to != from {
                graph.tie(&from, &to, &names.join(", "));
            }
        }
    }
    graph
}

#[test]
fn the_python_package_has_no_module_cycle() {
    let graph = python_graph();
    let report = graph.cycles();
    assert!(
        report.is_empty(),
        "module cycles in bindings/python/python/ankita:\n{report}"
    );
    // The graph was read.
    assert!(graph.uses("__init__", "_messages") && graph.uses("_messages", "_ankita"));
    assert!(graph.uses("langchain", "_adapters"));
}

fn strongly_connected(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adjacency: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.adjacency[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = adjacency.len();
    let mut s = State {
        adjacency,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn a_cycle_is_found() {
    // a -> b -> c -> a, and d alone.
    let adjacency = vec![vec![1], vec![2], vec![0], vec![0]];
    let cycles: Vec<Vec<usize>> = strongly_connected(&adjacency)
        .into_iter()
        .filter(|c| c.len() > 1)
        .collect();
    assert_eq!(cycles.len(), 1);
    let mut cycle = cycles[0].clone();
    cycle.sort();
    assert_eq!(cycle, vec![0, 1, 2]);
    let refs = references("use crate::a::{b::C, d};\nlet x = super::e::f();");
    assert!(refs.contains(&("crate", vec!["a".into(), "b".into(), "C".into()])));
    assert!(refs.contains(&("crate", vec!["a".into(), "d".into()])));
    assert!(refs.contains(&("super", vec!["e".into(), "f".into()])));
    // The report names the cycle and what ties it.
    let mut graph = Graph {
        modules: ["tail", "trim", "convert"].map(String::from).into(),
        ..Graph::default()
    };
    graph.tie("tail", "trim", "build_messages");
    graph.tie("trim", "tail", "trim_from_tail");
    graph.tie("trim", "convert", "to_value");
    let report = graph.cycles();
    assert!(report.contains("tail -> trim: build_messages"), "{report}");
    assert!(report.contains("trim -> tail: trim_from_tail"), "{report}");
    assert!(!report.contains("convert"), "{report}");
}

#[test]
fn javascript_imports_are_read() {
    let text = r##"// import { not } from "./comment.js";
import { native } from "#native";
import {
  firstTail,
  planMessages as plan,
} from "./lib/tail.js";
import * as all from "./all.js";
import fs from "node:fs";
import "./side.js";
export { trimMany } from "./lib/batch.js";
export { AnkitaError };
/** @param {import("./index.js").Message} m */
const later = await import("./later.js");
"##;
    let expected: Vec<(String, Vec<String>)> = vec![
        ("#native".into(), vec!["native".into()]),
        (
            "./lib/tail.js".into(),
            vec!["firstTail".into(), "planMessages".into()],
        ),
        ("./all.js".into(), vec!["*".into()]),
        ("node:fs".into(), vec!["default".into()]),
        ("./side.js".into(), vec![]),
        ("./lib/batch.js".into(), vec!["trimMany".into()]),
        ("./later.js".into(), vec!["import()".into()]),
    ];
    assert_eq!(js_imports(text), expected);
}

#[test]
fn python_imports_are_read() {
    let modules: BTreeSet<String> = ["__init__", "_ankita", "_messages", "_types", "langchain"]
        .map(String::from)
        .into();
    let text = r#""""A module.

    from ankita.langchain import not_this
"""
from __future__ import annotations
import json
from . import _ankita, version  # version is the package's
from ._messages import (
    trim as _trim,  # a comment
    count_tokens,
)
from ankita._types import Report

def later():
    from .langchain import trimmer
    import ankita._types
"#;
    let expected: Vec<(String, Vec<String>)> = vec![
        ("_ankita".into(), vec!["_ankita".into()]),
        ("__init__".into(), vec!["version".into()]),
        (
            "_messages".into(),
            vec!["trim".into(), "count_tokens".into()],
        ),
        ("_types".into(), vec!["Report".into()]),
        ("langchain".into(), vec!["trimmer".into()]),
        ("_types".into(), vec!["_types".into()]),
    ];
    assert_eq!(python_imports(text, &modules), expected);
}

/// `path` and its line count (a Rust file's before its tests), when that is over 800.
fn long_file(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let body = if path.extension().is_some_and(|e| e == "rs") {
        text.split("#[cfg(test)]").next().unwrap_or("")
    } else {
        &text
    };
    let lines = body.lines().count();
    (lines > 800).then(|| format!("{} ({lines} lines)", path.display()))
}

#[test]
fn no_source_file_is_over_800_lines_before_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("src"), &mut paths);
    files(&root.join("bindings/python/src"), &mut paths);
    paths.extend(node_files());
    paths.extend(python_files());
    // The Node package's declarations: index.d.ts and the files of types/ it re-exports.
    let node = root.join("bindings/node");
    paths.push(node.join("index.d.ts"));
    for entry in std::fs::read_dir(node.join("types")).unwrap() {
        paths.push(entry.unwrap().path());
    }
    let long: Vec<String> = paths.iter().filter_map(|p| long_file(p)).collect();
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}

/// The graph of `graph`'s top-level modules (a folder of src/ and the files in it are one).
fn top_level(graph: &Graph) -> Graph {
    let head = |m: &str| m.split("::").next().unwrap_or(m).to_owned();
    let mut top = Graph::default();
    for m in &graph.modules {
        top.modules.insert(head(m));
    }
    for (from, edges) in &graph.edges {
        for (to, names) in edges {
            if head(from) != head(to) {
                for n in names {
                    top.tie(&head(from), &head(to), &format!("{from} -> {to}: {n}"));
                }
            }
        }
    }
    top
}

/// No circle among the library's top-level modules either: a use of `crate::X` (a name the
/// root re-exports) counts as a use of the module defining `X`.
#[test]
fn the_librarys_top_level_modules_have_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = top_level(&rust_graph(&src, Some("bin")));
    let report = graph.cycles();
    assert!(
        report.is_empty(),
        "module cycles among src/'s top level:\n{report}"
    );
    assert!(graph.uses("tail", "request") && graph.uses("request", "format"));
}
