//! The library's module graph has no cycle, and no source file is long: each file's references
//! (`crate::a::b`, `super::c`, outside comments and its tests) are edges, and a cycle among
//! them fails with the modules and the names that tie them.

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

#[test]
fn the_library_has_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    // The library's modules (the command line is a crate of its own).
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| !p.strip_prefix(&src).unwrap().starts_with("bin"))
        .collect();
    let modules: BTreeSet<Vec<String>> = paths
        .iter()
        .map(|p| module_of(p.strip_prefix(&src).unwrap()))
        .collect();
    // module -> module -> the names that tie them
    let mut edges: BTreeMap<Vec<String>, BTreeMap<Vec<String>, BTreeSet<String>>> = BTreeMap::new();
    for path in &paths {
        let relative = path.strip_prefix(&src).unwrap();
        let from = module_of(relative);
        let is_mod = relative.ends_with("mod.rs");
        let text = std::fs::read_to_string(path).unwrap();
        for (prefix, segments) in references(&code(&text)) {
            let mut full = if prefix == "crate" {
                Vec::new()
            } else {
                // `super` of a/b.rs is a; of a/b/mod.rs (module a::b) it is a too.
                let mut parent = from.clone();
                let _ = is_mod;
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
            let name = segments.last().cloned().unwrap_or_default();
            edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .insert(name);
        }
    }
    // Tarjan's strongly connected components.
    let nodes: Vec<Vec<String>> = modules.iter().cloned().collect();
    let index_of = |m: &Vec<String>| nodes.iter().position(|n| n == m).unwrap();
    let adjacency: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(n)
                .map(|e| e.keys().map(index_of).collect())
                .unwrap_or_default()
        })
        .collect();
    let cycles = strongly_connected(&adjacency);
    let mut report = String::new();
    for cycle in cycles.iter().filter(|c| c.len() > 1) {
        report += "cycle:\n";
        for &a in cycle {
            for (to, names) in edges.get(&nodes[a]).into_iter().flatten() {
                if cycle.contains(&index_of(to)) {
                    report += &format!(
                        "  {} -> {}: {}\n",
                        nodes[a].join("::"),
                        to.join("::"),
                        names.iter().cloned().collect::<Vec<_>>().join(", ")
                    );
                }
            }
        }
    }
    assert!(report.is_empty(), "module cycles:\n{report}");
    // The graph was read: the pipeline's modules depend on each other as they should.
    let trim = vec!["trim".to_owned()];
    assert!(edges[&trim].contains_key(&vec!["trimmer".to_owned()]));
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
}

#[test]
fn no_source_file_is_over_800_lines_before_its_tests() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let long: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let lines = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .count();
            (lines > 800).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}
