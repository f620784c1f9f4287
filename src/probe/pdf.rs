//! PDF: the page count and the first page's size from the document's structure, never its
//! content (ISO 32000-1 §7.5, §7.7.3).
//!
//! `startxref` at the end of the file points at the newest cross-reference section, a classic
//! `xref` table or (PDF 1.5+) a cross-reference stream; each section's `/Prev` (and a hybrid
//! file's `/XRefStm`) leads to the older ones, newer entries winning. The trailer's `/Root` is
//! the catalog, whose `/Pages` tree root states `/Count`. Objects may sit in Flate-compressed
//! object streams. When the cross-references cannot be followed (a damaged or hand-edited
//! file), the objects are found by scanning for `n g obj`; when `/Count` is absent or not
//! positive, the leaves of `/Kids` are counted. Every object is read at most once per lookup
//! chain, so a cyclic page tree or `/Prev` chain ends.

use super::file_info::{inflate_budget, DocumentInfo, FileError, MAX_DEPTH};
use super::pdf_syntax::{decode_stream, get, indirect_at, Dict, Lexer, Obj};
use std::collections::{HashMap, HashSet};

/// No page tree is walked past this many nodes.
const MAX_NODES: usize = 1_000_000;

/// Cross-reference streams add no more entries than one per this many bytes of the file (over
/// [`MIN_ENTRIES`]): an object takes more, even packed in a compressed object stream, while
/// a stream of zeros inflated 1,032-fold would list millions of free objects.
const BYTES_PER_ENTRY: usize = 8;
const MIN_ENTRIES: usize = 4096;

/// Whether `bytes` is a PDF: `%PDF-` in its first kilobyte (some writers put junk first).
pub(crate) fn matches(bytes: &[u8]) -> bool {
    memchr::memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some()
}

/// Where an object is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Entry {
    Free,
    At(usize),
    InStream { stream: u32, index: u32 },
}

/// A decoded object stream: its objects' (number, position in the text), and the text.
type ObjectStream = (Vec<(u32, usize)>, Vec<u8>);

struct Pdf<'a> {
    data: &'a [u8],
    /// Bytes before `%PDF-`: offsets count from the header.
    shift: usize,
    entries: HashMap<u32, Entry>,
    root: Option<u32>,
    encrypted: bool,
    /// Object streams decoded so far: their objects' (number, position) and text.
    streams: HashMap<u32, Option<ObjectStream>>,
    /// What the streams held inflated may add up to ([`inflate_budget`] of the file's size)…
    budget: usize,
    /// …and what they hold now (the object streams' texts; a cross-reference stream's data
    /// only while its section is read).
    held: usize,
}

/// Reads the page count and the first page's size.
pub(crate) fn read(data: &[u8]) -> Result<DocumentInfo, FileError> {
    let shift = memchr::memmem::find(data, b"%PDF-").ok_or(FileError::UnknownFormat)?;
    let mut pdf = Pdf {
        data,
        shift,
        entries: HashMap::new(),
        root: None,
        encrypted: false,
        streams: HashMap::new(),
        budget: inflate_budget(data.len()),
        held: 0,
    };
    let from_xref = pdf.load_xref().is_ok() && pdf.root.is_some();
    if let (true, Ok(info)) = (from_xref, pdf.pages()) {
        return Ok(info);
    }
    if pdf.encrypted {
        return Err(FileError::Encrypted);
    }
    // The cross-references are broken or lead nowhere: find the objects by scanning.
    pdf.scan_objects();
    if pdf.encrypted {
        return Err(FileError::Encrypted);
    }
    pdf.pages()
}

impl Pdf<'_> {
    /// Follows `startxref` and every `/Prev` and `/XRefStm`.
    fn load_xref(&mut self) -> Result<(), FileError> {
        let tail_start = self.data.len().saturating_sub(2048);
        let tail = &self.data[tail_start..];
        let at = memchr::memmem::rfind(tail, b"startxref").ok_or(FileError::Malformed)?;
        let mut lx = Lexer::new(self.data, tail_start + at + "startxref".len());
        let first = lx.uint().ok_or(FileError::Malformed)?;
        let mut pending = vec![first];
        let mut seen = HashSet::new();
        while let Some(offset) = pending.pop() {
            if !seen.insert(offset) || seen.len() > 4096 {
                continue;
            }
            let offset = usize::try_from(offset).map_err(|_| FileError::Malformed)?;
            let trailer = self
                .section(offset.saturating_add(self.shift))
                .or_else(|e| {
                    // Offsets counted from the file's start although junk precedes the header.
                    if self.shift > 0 {
                        self.section(offset)
                    } else {
                        Err(e)
                    }
                })?;
            if self.root.is_none() {
                self.root = match get(&trailer, b"Root") {
                    Some(Obj::Ref(r)) => Some(*r),
                    _ => None,
                };
            }
            self.encrypted |= get(&trailer, b"Encrypt").is_some_and(|e| *e != Obj::Null);
            // Read the older section last: the hybrid stream first, then /Prev.
            for key in [&b"Prev"[..], b"XRefStm"] {
                if let Some(Obj::Int(p)) = get(&trailer, key) {
                    pending.push(u64::try_from(*p).map_err(|_| FileError::Malformed)?);
                }
            }
        }
        Ok(())
    }

    /// Reads the cross-reference section at `offset` (entries not yet known are added) and
    /// answers its trailer dictionary.
    fn section(&mut self, offset: usize) -> Result<Dict, FileError> {
        let mut lx = Lexer::new(self.data, offset);
        if lx.keyword(b"xref") {
            loop {
                let save = lx.pos;
                let (Some(first), Some(count)) = (lx.uint(), lx.uint()) else {
                    lx.pos = save;
                    break;
                };
                for i in 0..count {
                    let (Some(off), Some(_gen)) = (lx.uint(), lx.uint()) else {
                        return Err(FileError::Malformed);
                    };
                    let entry = match lx.word() {
                        b"n" => Entry::At(usize::try_from(off).map_err(|_| FileError::Malformed)?),
                        b"f" => Entry::Free,
                        _ => return Err(FileError::Malformed),
                    };
                    let num = first.checked_add(i).and_then(|n| u32::try_from(n).ok());
                    let num = num.ok_or(FileError::Malformed)?;
                    self.entries.entry(num).or_insert(entry);
                }
            }
            if !lx.keyword(b"trailer") {
                return Err(FileError::Malformed);
            }
            return match lx.object(0)? {
                Obj::Dict(d) => Ok(d),
                _ => Err(FileError::Malformed),
            };
        }
        let obj = indirect_at(self.data, offset)?;
        let (Obj::Dict(dict), Some(raw)) = (obj.obj, obj.stream) else {
            return Err(FileError::Malformed);
        };
        if !get(&dict, b"Type").is_some_and(|t| t.is_name(b"XRef")) {
            return Err(FileError::Malformed);
        }
        if get(&dict, b"Encrypt").is_some_and(|e| *e != Obj::Null) {
            // Cross-reference streams are never encrypted, but the objects they lead to are.
            self.encrypted = true;
        }
        let data = decode_stream(&dict, raw, self.budget.saturating_sub(self.held))?;
        let widths: Vec<usize> = match get(&dict, b"W") {
            Some(Obj::Array(w)) if w.len() == 3 => w
                .iter()
                .map(|x| {
                    x.as_int()
                        .and_then(|i| usize::try_from(i).ok())
                        .filter(|&i| i <= 8)
                })
                .collect::<Option<_>>()
                .ok_or(FileError::Malformed)?,
            _ => return Err(FileError::Malformed),
        };
        let row: usize = widths.iter().sum();
        if row == 0 {
            return Err(FileError::Malformed);
        }
        let size = get(&dict, b"Size").and_then(Obj::as_int).unwrap_or(0);
        let index: Vec<i64> = match get(&dict, b"Index") {
            Some(Obj::Array(a)) => a
                .iter()
                .map(Obj::as_int)
                .collect::<Option<_>>()
                .ok_or(FileError::Malformed)?,
            _ => vec![0, size],
        };
        let mut rows = data.chunks_exact(row);
        let max_entries = self.data.len() / BYTES_PER_ENTRY + MIN_ENTRIES;
        for pair in index.chunks_exact(2) {
            let (first, count) = (pair[0], pair[1]);
            if first < 0 || count < 0 {
                return Err(FileError::Malformed);
            }
            for i in 0..count {
                let Some(r) = rows.next().filter(|_| self.entries.len() < max_entries) else {
                    break;
                };
                let field = |k: usize| {
                    let start: usize = widths[..k].iter().sum();
                    r[start..start + widths[k]]
                        .iter()
                        .fold(0u64, |n, &b| (n << 8) | u64::from(b))
                };
                let kind = if widths[0] == 0 { 1 } else { field(0) };
                let entry = match kind {
                    0 => Entry::Free,
                    1 => Entry::At(usize::try_from(field(1)).map_err(|_| FileError::Malformed)?),
                    2 => Entry::InStream {
                        stream: u32::try_from(field(1)).map_err(|_| FileError::Malformed)?,
                        index: u32::try_from(field(2)).map_err(|_| FileError::Malformed)?,
                    },
                    // Unknown types are references to the null object.
                    _ => Entry::Free,
                };
                let num = u32::try_from(first + i).map_err(|_| FileError::Malformed)?;
                self.entries.entry(num).or_insert(entry);
            }
        }
        Ok(dict)
    }

    /// Rebuilds the entries from every `n g obj` in the file (a later definition wins), and
    /// the root from the last trailer naming one or else the last catalog object.
    fn scan_objects(&mut self) {
        self.entries.clear();
        self.streams.clear();
        self.held = 0;
        self.root = None;
        let data = self.data;
        let mut catalog = None;
        for at in memchr::memmem::find_iter(data, b"obj") {
            // Back up over `n g ` before the keyword.
            let Some(start) = object_start(data, at) else {
                continue;
            };
            let Ok(obj) = indirect_at(data, start) else {
                continue;
            };
            self.entries
                .insert(obj.num, Entry::At(start - self.shift.min(start)));
            if let Obj::Dict(d) = &obj.obj {
                if get(d, b"Type").is_some_and(|t| t.is_name(b"Catalog")) {
                    catalog = Some(obj.num);
                }
                if get(d, b"Type").is_some_and(|t| t.is_name(b"ObjStm")) {
                    if let Some(objects) = self.stream_objects(obj.num).map(|(o, _)| o.clone()) {
                        for (i, &(num, _)) in objects.iter().enumerate() {
                            let entry = Entry::InStream {
                                stream: obj.num,
                                index: i as u32,
                            };
                            self.entries.entry(num).or_insert(entry);
                        }
                    }
                }
            }
        }
        for at in memchr::memmem::find_iter(data, b"trailer") {
            let mut lx = Lexer::new(data, at + "trailer".len());
            if let Ok(Obj::Dict(d)) = lx.object(0) {
                if let Some(Obj::Ref(r)) = get(&d, b"Root") {
                    self.root = Some(*r);
                }
                self.encrypted |= get(&d, b"Encrypt").is_some_and(|e| *e != Obj::Null);
            }
        }
        if self.root.is_none_or(|r| self.resolve_dict(r).is_none()) {
            self.root = catalog;
        }
    }

    /// Object `num`, read from where the cross-references say.
    fn object(&mut self, num: u32) -> Option<Obj> {
        match *self.entries.get(&num)? {
            Entry::Free => None,
            Entry::At(offset) => {
                let found = indirect_at(self.data, offset.checked_add(self.shift)?)
                    .ok()
                    .filter(|o| o.num == num)
                    .or_else(|| indirect_at(self.data, offset).ok().filter(|o| o.num == num))?;
                Some(found.obj)
            }
            Entry::InStream { stream, index } => {
                let (objects, text) = self.stream_objects(stream)?;
                let &(n, pos) = objects.get(index as usize)?;
                let (n, pos) = if n == num {
                    (n, pos)
                } else {
                    *objects.iter().find(|(n, _)| *n == num)?
                };
                debug_assert_eq!(n, num);
                Lexer::new(text, pos).object(0).ok()
            }
        }
    }

    /// An object stream's (number, position) list and decoded text, read once.
    fn stream_objects(&mut self, stream: u32) -> Option<&ObjectStream> {
        if !self.streams.contains_key(&stream) {
            let decoded = self.decode_object_stream(stream, self.budget.saturating_sub(self.held));
            if let Some((objects, text)) = &decoded {
                self.held += text.len() + objects.len() * std::mem::size_of::<(u32, usize)>();
            }
            self.streams.insert(stream, decoded);
        }
        self.streams.get(&stream)?.as_ref()
    }

    /// Object stream `stream`'s objects and text, its text at most `limit` bytes.
    fn decode_object_stream(&self, stream: u32, limit: usize) -> Option<ObjectStream> {
        let Entry::At(offset) = *self.entries.get(&stream)? else {
            return None;
        };
        let obj = indirect_at(self.data, offset.checked_add(self.shift)?)
            .ok()
            .filter(|o| o.num == stream)
            .or_else(|| {
                indirect_at(self.data, offset)
                    .ok()
                    .filter(|o| o.num == stream)
            })?;
        let (Obj::Dict(dict), Some(raw)) = (&obj.obj, obj.stream) else {
            return None;
        };
        let text = decode_stream(dict, raw, limit).ok()?;
        let n = usize::try_from(get(dict, b"N")?.as_int()?).ok()?;
        let first = usize::try_from(get(dict, b"First")?.as_int()?).ok()?;
        let mut lx = Lexer::new(&text, 0);
        let mut objects = Vec::with_capacity(n.min(text.len() / 4));
        for _ in 0..n {
            let (Some(num), Some(pos)) = (lx.uint(), lx.uint()) else {
                break;
            };
            let pos = usize::try_from(pos).ok()?.checked_add(first)?;
            objects.push((u32::try_from(num).ok()?, pos));
        }
        Some((objects, text))
    }

    /// A dictionary given directly or by reference (streams' dictionaries included).
    fn resolve_dict(&mut self, num: u32) -> Option<Dict> {
        match self.object(num)? {
            Obj::Dict(d) => Some(d),
            _ => None,
        }
    }

    fn resolve(&mut self, obj: &Obj) -> Option<Obj> {
        match obj {
            Obj::Ref(r) => self.object(*r),
            other => Some(other.clone()),
        }
    }

    /// The page count (`/Count` of the page tree's root, else its leaves counted) and the first
    /// page's size.
    fn pages(&mut self) -> Result<DocumentInfo, FileError> {
        let root = self.root.ok_or(FileError::Malformed)?;
        let catalog = self.resolve_dict(root).ok_or(FileError::Malformed)?;
        let tree = match get(&catalog, b"Pages") {
            Some(Obj::Ref(r)) => *r,
            _ => return Err(FileError::Malformed),
        };
        let tree_dict = self.resolve_dict(tree).ok_or(FileError::Malformed)?;
        let (leaves, page_size) = self.walk(tree, tree_dict.clone());
        let count = get(&tree_dict, b"Count")
            .and_then(|c| self.resolve(c))
            .and_then(|c| c.as_int())
            .and_then(|c| u32::try_from(c).ok())
            .filter(|&c| c > 0);
        let pages = count
            .or((leaves > 0).then_some(leaves))
            .ok_or(FileError::Malformed)?;
        Ok(DocumentInfo { pages, page_size })
    }

    /// Counts the page tree's leaves and finds the first page's size (its own or inherited
    /// `/MediaBox`, turned by `/Rotate`). Each node is visited once.
    fn walk(&mut self, root: u32, root_dict: Dict) -> (u32, Option<(u32, u32)>) {
        let mut seen = HashSet::from([root]);
        // (node, inherited media box, inherited rotation, depth), depth first, in order.
        let mut stack = vec![(root_dict, None::<(f64, f64)>, 0i64, 0usize)];
        let (mut leaves, mut first) = (0u32, None);
        while let Some((node, inherited_box, inherited_rotate, depth)) = stack.pop() {
            if seen.len() > MAX_NODES {
                break;
            }
            let media = match get(&node, b"MediaBox").and_then(|m| self.resolve(m)) {
                Some(Obj::Array(a)) if a.len() == 4 => {
                    let n: Option<Vec<f64>> = a.iter().map(Obj::as_num).collect();
                    n.map(|n| ((n[2] - n[0]).abs(), (n[3] - n[1]).abs()))
                }
                _ => None,
            }
            .or(inherited_box);
            let rotate = get(&node, b"Rotate")
                .and_then(Obj::as_int)
                .unwrap_or(inherited_rotate);
            let kids = match get(&node, b"Kids").and_then(|k| self.resolve(k)) {
                Some(Obj::Array(k)) => Some(k),
                _ => None,
            };
            let is_leaf = get(&node, b"Type").is_some_and(|t| t.is_name(b"Page")) || kids.is_none();
            if is_leaf {
                leaves = leaves.saturating_add(1);
                if first.is_none() {
                    first = Some(media.map(|(w, h)| {
                        let (w, h) = (points(w), points(h));
                        if rotate.rem_euclid(180) == 90 {
                            (h, w)
                        } else {
                            (w, h)
                        }
                    }));
                }
                continue;
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            for kid in kids.unwrap_or_default().iter().rev() {
                let Obj::Ref(r) = kid else {
                    continue;
                };
                if !seen.insert(*r) {
                    continue;
                }
                if let Some(d) = self.resolve_dict(*r) {
                    stack.push((d, media, rotate, depth + 1));
                }
            }
        }
        (leaves, first.flatten())
    }
}

/// A side in points, rounded, at least 1 and at most 14,400 (the largest PDF page, 200 in).
fn points(x: f64) -> u32 {
    x.round().clamp(1.0, 14_400.0) as u32
}

/// Where `n g obj` begins, given the position of `obj`; `None` unless two integers precede it.
fn object_start(data: &[u8], obj_at: usize) -> Option<usize> {
    let after = data.get(obj_at + 3).copied();
    if after.is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let mut i = obj_at;
    for _ in 0..2 {
        let mut spaces = 0;
        while i > 0 && super::pdf_syntax::is_space(data[i - 1]) {
            i -= 1;
            spaces += 1;
        }
        let end = i;
        while i > 0 && data[i - 1].is_ascii_digit() && end - i < 10 {
            i -= 1;
        }
        if i == end || spaces == 0 {
            return None;
        }
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A classic PDF with `n` pages, its offsets computed.
    pub(crate) fn classic(n: usize, count: Option<usize>) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        let kids: String = (0..n).map(|i| format!("{} 0 R ", 3 + i)).collect();
        let count = count.map_or(String::new(), |c| format!("/Count {c}"));
        let mut objects = vec![
            "<</Type/Catalog/Pages 2 0 R>>".to_owned(),
            format!("<</Type/Pages/Kids[{kids}]{count}/MediaBox[0 0 612 792]>>"),
        ];
        objects.extend((0..n).map(|_| "<</Type/Page/Parent 2 0 R>>".to_owned()));
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for o in offsets {
            out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }

    #[test]
    fn count_kids_fallback_and_scan() {
        assert_eq!(
            read(&classic(3, Some(3))),
            Ok(DocumentInfo {
                pages: 3,
                page_size: Some((612, 792))
            })
        );
        // No /Count: the leaves are counted.
        assert_eq!(read(&classic(5, None)).unwrap().pages, 5);
        // A wrong startxref: the objects are found by scanning.
        let mut broken = classic(4, Some(4));
        let at = memchr::memmem::rfind(&broken, b"startxref\n").unwrap() + 10;
        broken[at] = b'9';
        assert_eq!(read(&broken).unwrap().pages, 4);
        // No xref at all.
        let pdf = classic(2, Some(2));
        let cut = memchr::memmem::find(&pdf, b"xref\n").unwrap();
        assert_eq!(read(&pdf[..cut]).unwrap().pages, 2);
    }

    #[test]
    fn cycles_and_garbage_end() {
        let cyclic = b"%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n\
            2 0 obj <</Type/Pages/Kids[2 0 R 3 0 R]>> endobj\n3 0 obj <</Kids[2 0 R]>> endobj\n";
        // Node 3 has Kids (not a leaf) and leads back to 2: nothing to count.
        assert_eq!(read(cyclic), Err(FileError::Malformed));
        assert_eq!(read(b"%PDF-1.7\n"), Err(FileError::Malformed));
        let encrypted = b"%PDF-1.4\ntrailer <</Root 1 0 R/Encrypt 5 0 R>>\n";
        assert_eq!(read(encrypted), Err(FileError::Encrypted));
    }
}
