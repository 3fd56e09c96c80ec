//! The one table model of the report. A section states each table once as a [`Table`]:
//! its columns ([`Column`]: a header, names or numbers, and what each format does with
//! it) and its rows of [`Cell`]s. Text that fits a patch email (at most [`WIDTH`]
//! columns, names left-aligned, numbers right-aligned, no trailing spaces) comes from
//! [`Table::text`] and [`Table::text_keyed`], Markdown from [`Table::markdown`] and CSV
//! from [`Table::csv`]. The free functions [`render`], [`render_keyed`] and
//! [`markdown`] below are those writers' layout, on columns ([`Col`]) and rows of
//! strings. A column's values can be made of parts ([`Column::parts`]), which text
//! lines up from row to row and Markdown gives a column each, and a table can end with
//! a row that sums up the others ([`Table::push_summary`]). The number formatters at
//! the end write every figure the tables print.

/// The widest line a text report may print: what pastes cleanly into a patch email.
pub const WIDTH: usize = 72;

/// A column: its header and whether its values are numbers (right-aligned).
#[derive(Debug, Clone, Copy)]
pub struct Col<'a> {
    pub header: &'a str,
    pub numeric: bool,
}

pub const fn name(header: &str) -> Col<'_> {
    Col {
        header,
        numeric: false,
    }
}

pub const fn num(header: &str) -> Col<'_> {
    Col {
        header,
        numeric: true,
    }
}

/// Renders rows under their headers, two spaces between columns, `indent` spaces first.
pub fn render(cols: &[Col<'_>], rows: &[Vec<String>], indent: usize) -> String {
    render_gap(cols, rows, indent, 2)
}

/// [`render`] with `gap` spaces between columns.
fn render_gap(cols: &[Col<'_>], rows: &[Vec<String>], indent: usize, gap: usize) -> String {
    let sep = " ".repeat(gap);
    let mut widths: Vec<usize> = cols.iter().map(|c| c.header.chars().count()).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = " ".repeat(indent);
        for (i, ((cell, w), col)) in cells.zip(&widths).zip(cols).enumerate() {
            if i > 0 {
                s.push_str(&sep);
            }
            if col.numeric {
                s.push_str(&format!("{cell:>w$}"));
            } else {
                s.push_str(&format!("{cell:<w$}"));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&mut cols.iter().map(|c| c.header));
    for r in rows {
        out += &line(&mut r.iter().map(String::as_str));
    }
    out
}

/// The columns and rows as a Markdown table: names left-aligned (`---`), numbers
/// right-aligned (`---:`). A line break inside a cell becomes a space, since a
/// Markdown row is one line.
pub fn markdown(cols: &[Col<'_>], rows: &[Vec<String>]) -> String {
    let headers: Vec<&str> = cols.iter().map(|c| c.header).collect();
    let mut out = format!("| {} |\n|", headers.join(" | "));
    for c in cols {
        out += if c.numeric { "---:|" } else { "---|" };
    }
    out.push('\n');
    for r in rows {
        out += &format!("| {} |\n", r.join(" | ").replace('\n', " "));
    }
    out
}

/// The widest line of a rendered block.
pub fn width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// A table whose first columns (`key`) name the row. Rendered as one table when it
/// fits [`WIDTH`], with two spaces between columns, else one; otherwise each row's key
/// goes on a line of its own, the values indented below it under one header.
pub fn render_keyed(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
) -> String {
    let cols: Vec<Col<'_>> = key.iter().chain(values).copied().collect();
    let flat: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| k.iter().chain(v).cloned().collect())
        .collect();
    for gap in [2, 1] {
        let table = render_gap(&cols, &flat, 0, gap);
        if width(&table) <= WIDTH || key.is_empty() {
            return table;
        }
    }
    let values_only: Vec<Vec<String>> = rows.iter().map(|(_, v)| v.clone()).collect();
    let body = render(values, &values_only, 2);
    let mut lines = body.lines();
    let mut out = lines.next().unwrap_or_default().to_owned() + "\n";
    for ((k, _), line) in rows.iter().zip(lines) {
        // Rows that continue the previous row's key leave it blank.
        if k.iter().any(|part| !part.is_empty()) {
            out += k.join(" ").trim_end();
            out.push('\n');
        }
        out += line;
        out.push('\n');
    }
    out
}

/// Whether [`render_keyed`] can print these rows as one flat table, two spaces apart.
pub fn fits(key: &[Col<'_>], values: &[Col<'_>], rows: &[(Vec<String>, Vec<String>)]) -> bool {
    fits_gap(key, values, rows, 2)
}

/// Whether [`render_keyed`] can print these rows as one flat table at all, two spaces
/// apart or else one, as it tries them.
pub fn fits_tight(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
) -> bool {
    fits_gap(key, values, rows, 2) || fits_gap(key, values, rows, 1)
}

fn fits_gap(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
    gap: usize,
) -> bool {
    let cols: Vec<Col<'_>> = key.iter().chain(values).copied().collect();
    let flat: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| k.iter().chain(v).cloned().collect())
        .collect();
    width(&render_gap(&cols, &flat, 0, gap)) <= WIDTH
}

/// A column of the explaining tables: its header, the sentence of the legend that
/// defines it (printed only when the column is), and its value for a cell.
pub struct Explaining<C> {
    pub col: Col<'static>,
    pub legend: &'static str,
    pub value: fn(&C) -> String,
}

// By hand, because a derive would ask `C` to be `Copy` too. So a table can join the
// core's columns and the features' into one group.
impl<C> Clone for Explaining<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Explaining<C> {}

/// The legend of these columns, each column's sentence in order. A column without a
/// sentence, such as the second of a pair that the first one's sentence defines, adds
/// none.
pub fn legend_of<C>(columns: &[&Explaining<C>]) -> String {
    let sentences: Vec<&str> = (columns.iter().map(|c| c.legend))
        .filter(|l| !l.is_empty())
        .collect();
    sentences.join(" ")
}

/// Groups of [`Explaining`] columns packed into as few tables as fit [`WIDTH`]: a
/// column whose every value is `-` is left out (the second value says which were), the
/// groups kept whole and in order. `key` and `rows` are each row's key parts and item.
pub fn pack<'a, C>(
    key: &[Col<'_>],
    rows: &[(Vec<String>, &C)],
    groups: &[&'a [Explaining<C>]],
) -> (Vec<Vec<&'a Explaining<C>>>, Vec<&'static str>) {
    let mut dropped = Vec::new();
    let shown: Vec<Vec<&Explaining<C>>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .filter(|col| {
                    let any = rows.iter().any(|(_, c)| (col.value)(c) != "-");
                    if !any {
                        dropped.push(col.col.header);
                    }
                    any
                })
                .collect::<Vec<_>>()
        })
        .filter(|g| !g.is_empty())
        .collect();
    let fits_in = |cols: &[&Explaining<C>]| {
        let values: Vec<Col<'_>> = cols.iter().map(|c| c.col).collect();
        let body: Vec<(Vec<String>, Vec<String>)> = rows
            .iter()
            .map(|(k, c)| (k.clone(), cols.iter().map(|col| (col.value)(c)).collect()))
            .collect();
        fits(key, &values, &body)
    };
    let mut tables: Vec<Vec<&Explaining<C>>> = Vec::new();
    for g in shown {
        match tables.last_mut() {
            Some(last) if fits_in(&[last.as_slice(), g.as_slice()].concat()) => last.extend(g),
            _ => tables.push(g),
        }
    }
    (tables, dropped)
}

/// Which formats show a column. Text fits a patch email, so some columns are left out
/// there, and Markdown has the room for others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Text, Markdown and CSV.
    Everywhere,
    /// Only the text table.
    Text,
    /// Only the Markdown table, where width is free.
    Wide,
}

/// A column of a [`Table`]: its header, its alignment, and what each format does with
/// it.
#[derive(Debug, Clone)]
pub struct Column {
    /// The header of the text table and the CSV.
    pub header: String,
    /// The Markdown header, where it says more than the text's narrow one.
    pub wide_header: Option<String>,
    /// Whether the values are numbers, right-aligned.
    pub numeric: bool,
    /// Whether Markdown sets the values as code, because a kernel symbol's underscores
    /// would otherwise read as emphasis.
    pub code: bool,
    /// The most characters a text value keeps; a longer one is cut and ends in `..`.
    pub fit: Option<usize>,
    /// Which formats show the column.
    pub shown: Shown,
    /// The parts of each value, where a value is made of several ([`Column::parts`]);
    /// empty otherwise.
    pub parts: Vec<Part>,
}

impl Column {
    /// A column of names, left-aligned.
    pub fn name(header: impl Into<String>) -> Column {
        Column {
            header: header.into(),
            wide_header: None,
            numeric: false,
            code: false,
            fit: None,
            shown: Shown::Everywhere,
            parts: Vec::new(),
        }
    }

    /// A column whose values are made of `parts` ([`Cell::parts`]), such as a label's
    /// cost, change, interval and mark in the cover letter's table. Text writes a
    /// value's parts side by side under `header`, each lined up with the same part of
    /// the other rows, and the column is left-aligned so that the parts stay lined up.
    /// Markdown gives each part a column of its own under the part's header.
    pub fn parts(header: impl Into<String>, parts: Vec<Part>) -> Column {
        Column {
            parts,
            ..Column::name(header)
        }
    }

    /// A column of numbers, right-aligned.
    pub fn num(header: impl Into<String>) -> Column {
        Column {
            numeric: true,
            ..Column::name(header)
        }
    }

    /// The column with a Markdown header of its own.
    pub fn wide_header(self, header: impl Into<String>) -> Column {
        Column {
            wide_header: Some(header.into()),
            ..self
        }
    }

    /// The column with its values set as code in Markdown.
    pub fn code(self) -> Column {
        Column { code: true, ..self }
    }

    /// The column with its text values cut to `max` characters.
    pub fn fit(self, max: usize) -> Column {
        Column {
            fit: Some(max),
            ..self
        }
    }

    /// The column shown only in `shown`.
    pub fn shown(self, shown: Shown) -> Column {
        Column { shown, ..self }
    }

    fn col(&self, wide: bool) -> Col<'_> {
        Col {
            header: match (wide, &self.wide_header) {
                (true, Some(h)) => h,
                _ => &self.header,
            },
            numeric: self.numeric,
        }
    }

    /// The column's headers in text or Markdown (`wide`): its own, or in Markdown one
    /// for each of its parts but the marks, right-aligned as the figures they head.
    fn cols(&self, wide: bool) -> Vec<Col<'_>> {
        if !wide || self.parts.is_empty() {
            return vec![self.col(wide)];
        }
        (self.parts.iter())
            .filter(|p| p.marks.is_none())
            .map(|p| num(&p.header))
            .collect()
    }

    /// The widest figure of each part in `rows`, which text lines the part up to.
    fn part_widths(&self, i: usize, rows: &[Vec<Cell>]) -> Vec<usize> {
        (0..self.parts.len())
            .map(|n| {
                (rows.iter())
                    .filter_map(|r| r[i].part(n))
                    .map(|f| f.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// A value of parts as text: each part right-aligned to the widest figure of its
    /// part (`widths`), one space after the part before, or two where it is a figure
    /// apart. The last part ends the value as it is, because nothing after it has to
    /// line up. An absent part is left blank.
    fn lined_up(&self, cell: &Cell, widths: &[usize]) -> String {
        let mut line = String::new();
        for (n, part) in self.parts.iter().enumerate() {
            let figure = cell.part(n).unwrap_or("");
            if n > 0 {
                line += if part.apart { "  " } else { " " };
            }
            match n + 1 == self.parts.len() {
                true => line += figure,
                false => line += &format!("{figure:>w$}", w = widths[n]),
            }
        }
        line.trim_end().to_owned()
    }

    /// A value of parts as Markdown's columns: each part's figure without the unit its
    /// header names, `-` where it is absent as in Markdown's other tables, and each mark
    /// after the figure it marks.
    fn part_figures(&self, cell: &Cell) -> Vec<String> {
        let marks_of = |n: usize| -> String {
            (self.parts.iter().enumerate())
                .filter(|(_, p)| p.marks == Some(n))
                .filter_map(|(m, _)| cell.part(m))
                .collect()
        };
        (self.parts.iter().enumerate())
            .filter(|(_, p)| p.marks.is_none())
            .map(|(n, p)| {
                let figure = match cell.part(n) {
                    Some(f) => f.strip_suffix(p.unit).unwrap_or(f),
                    None => "-",
                };
                figure.to_owned() + &marks_of(n)
            })
            .collect()
    }
}

/// One part of the values of a column of parts ([`Column::parts`]).
#[derive(Debug, Clone)]
pub struct Part {
    /// The header of the part's own column in Markdown.
    pub header: String,
    /// The unit that text writes after each figure, such as `%`, because text has one
    /// header for all the parts. Markdown's header names it instead, so Markdown drops
    /// it from the figures.
    pub unit: &'static str,
    /// Whether the part is a figure apart from the one before it, which text sets two
    /// spaces after it. A part that says more about the one before, such as its
    /// interval or its mark, follows it after one space.
    pub apart: bool,
    /// For a mark such as `*`, the part it marks. Markdown writes the mark after that
    /// part's figure, because a column of marks alone would be mostly empty.
    pub marks: Option<usize>,
}

impl Part {
    /// A part that Markdown heads `header`, one space after the part before in text.
    pub fn new(header: impl Into<String>) -> Part {
        Part {
            header: header.into(),
            unit: "",
            apart: false,
            marks: None,
        }
    }

    /// The part with its figures in `unit`.
    pub fn unit(self, unit: &'static str) -> Part {
        Part { unit, ..self }
    }

    /// The part as a figure apart from the one before it.
    pub fn apart(self) -> Part {
        Part {
            apart: true,
            ..self
        }
    }

    /// A mark of the part at `index` of the same column.
    pub fn mark(index: usize) -> Part {
        Part {
            marks: Some(index),
            ..Part::new("")
        }
    }
}

impl From<&Col<'_>> for Column {
    fn from(c: &Col<'_>) -> Column {
        match c.numeric {
            true => Column::num(c.header),
            false => Column::name(c.header),
        }
    }
}

/// Headers as columns: the first `names` are names, the others numbers.
pub fn columns(headers: &[&str], names: usize) -> Vec<Column> {
    headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            if i < names {
                Column::name(*h)
            } else {
                Column::num(*h)
            }
        })
        .collect()
}

/// A value of a [`Table`]: what the text prints, and what Markdown prints where it has
/// the room to say more, such as a median with its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub wide: Option<String>,
    /// The figure of each part, where the column's values are made of parts
    /// ([`Column::parts`]); `None` where a part is absent. Empty otherwise.
    pub parts: Vec<Option<String>>,
}

impl Cell {
    /// A value Markdown writes as `wide` and the other formats as `text`.
    pub fn wide(text: String, wide: String) -> Cell {
        Cell {
            wide: Some(wide),
            ..Cell::from(text)
        }
    }

    /// A value of a column of parts, a figure or `None` for each part. Text and
    /// Markdown set the parts as [`Column::parts`] says. The CSV, which takes one value
    /// a column, writes the figures one space apart as its `text`.
    pub fn parts(parts: Vec<Option<String>>) -> Cell {
        let figures: Vec<&str> = (parts.iter().flatten())
            .map(String::as_str)
            .filter(|f| !f.is_empty())
            .collect();
        let text = figures.join(" ");
        Cell {
            parts,
            ..Cell::from(text)
        }
    }

    /// The figure of part `n`, if it has one.
    fn part(&self, n: usize) -> Option<&str> {
        self.parts.get(n).and_then(Option::as_deref)
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell {
            text,
            wide: None,
            parts: Vec::new(),
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_owned())
    }
}

/// One table of a report section, stated once as its columns and its rows. The writers
/// walk it: [`Table::text`] and [`Table::text_keyed`] for text, [`Table::markdown`] and
/// [`Table::csv`]. The first [`Table::key`] columns name the row.
#[derive(Debug, Clone)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
    /// How many of the first columns name the row: text folds them onto a line of
    /// their own when the table is too wide.
    pub key: usize,
    /// Whether text leaves a row's key blank when it is the row above's, so a key
    /// with several lines is named once.
    pub key_once: bool,
    /// The name of the last row where it sums up the others, such as `geomean`
    /// ([`Table::push_summary`]). Each format writes it in the first key column it
    /// shows, whichever that is, and leaves the row's other key columns blank.
    pub summary: Option<String>,
}

impl Table {
    /// A table of `columns` without rows, none of them a key.
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
            key: 0,
            key_once: false,
            summary: None,
        }
    }

    /// The table with its first `key` columns naming the row.
    pub fn keyed(self, key: usize) -> Table {
        Table { key, ..self }
    }

    /// The table naming a key once where rows in a row share it (text only).
    pub fn key_once(self) -> Table {
        Table {
            key_once: true,
            ..self
        }
    }

    /// Adds a row.
    pub fn push<C: Into<Cell>>(&mut self, row: impl IntoIterator<Item = C>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    /// Adds the last row, which sums up the others under `name` ([`Table::summary`]):
    /// the key columns blank, then `values`.
    pub fn push_summary<C: Into<Cell>>(&mut self, name: &str, values: impl IntoIterator<Item = C>) {
        let key = std::iter::repeat_n(Cell::from(""), self.key);
        let values = values.into_iter().map(Into::into);
        self.rows.push(key.chain(values).collect());
        self.summary = Some(name.to_owned());
    }

    /// The table with the rows `rows` adds.
    pub fn with_rows<C: Into<Cell>, R: IntoIterator<Item = C>>(
        mut self,
        rows: impl IntoIterator<Item = R>,
    ) -> Table {
        for r in rows {
            self.push(r);
        }
        self
    }

    /// The table of the rows `keep` chooses.
    pub fn rows_where(&self, keep: impl Fn(&[Cell]) -> bool) -> Table {
        let summary_kept = self.rows.last().is_some_and(|r| keep(r));
        Table {
            rows: self.rows.iter().filter(|r| keep(r)).cloned().collect(),
            summary: self.summary.clone().filter(|_| summary_kept),
            ..self.clone()
        }
    }

    /// The table of the columns at `indices`, in that order; the key is the key
    /// columns kept.
    pub fn pick(&self, indices: &[usize]) -> Table {
        Table {
            columns: indices.iter().map(|&i| self.columns[i].clone()).collect(),
            rows: (self.rows.iter())
                .map(|r| indices.iter().map(|&i| r[i].clone()).collect())
                .collect(),
            key: indices.iter().filter(|&&i| i < self.key).count(),
            key_once: self.key_once,
            summary: self.summary.clone(),
        }
    }

    /// The columns shown in text or Markdown (`wide`), with their values there.
    fn shown(&self, wide: bool) -> (Vec<Col<'_>>, usize, Vec<Vec<String>>) {
        let keep: Vec<usize> = (0..self.columns.len())
            .filter(|&i| match self.columns[i].shown {
                Shown::Everywhere => true,
                Shown::Text => !wide,
                Shown::Wide => wide,
            })
            .collect();
        let cols = keep.iter().flat_map(|&i| self.columns[i].cols(wide));
        let key = keep.iter().filter(|&&i| i < self.key).count();
        let widths: Vec<Vec<usize>> = (self.columns.iter().enumerate())
            .map(|(i, c)| c.part_widths(i, &self.rows))
            .collect();
        let mut above: Option<&[Cell]> = None;
        let mut rows: Vec<Vec<String>> = (self.rows.iter())
            .map(|r| {
                let same_key = above.is_some_and(|a| a[..self.key] == r[..self.key]);
                above = Some(r);
                (keep.iter())
                    .flat_map(|&i| self.values(i, r, wide, same_key, &widths[i]))
                    .collect()
            })
            .collect();
        // The key columns come first, so the first one shown is the row's first value.
        if let (Some(name), Some(last), true) = (&self.summary, rows.last_mut(), key > 0) {
            last[0].clone_from(name);
        }
        (cols.collect(), key, rows)
    }

    /// Row `r`'s value in column `i`, as text or Markdown (`wide`) shows it: one value,
    /// or in Markdown one for each part. `same_key` says that the row's key is the row
    /// above's, and `widths` are the widest figures of the column's parts.
    fn values(
        &self,
        i: usize,
        r: &[Cell],
        wide: bool,
        same_key: bool,
        widths: &[usize],
    ) -> Vec<String> {
        let (c, cell) = (&self.columns[i], &r[i]);
        if !c.parts.is_empty() {
            return match wide {
                true => c.part_figures(cell),
                false => vec![c.lined_up(cell, widths)],
            };
        }
        let value = match (wide, &cell.wide) {
            (true, Some(w)) => w.clone(),
            (true, None) if c.code => format!("`{}`", cell.text),
            (true, None) => cell.text.clone(),
            (false, _) if self.key_once && same_key && i < self.key => String::new(),
            (false, _) => match c.fit {
                Some(max) => fit(&cell.text, max),
                None => cell.text.clone(),
            },
        };
        vec![value]
    }

    /// The table as text: two spaces between columns, `indent` spaces first.
    pub fn text(&self, indent: usize) -> String {
        let (cols, _, rows) = self.shown(false);
        render(&cols, &rows, indent)
    }

    /// Whether text prints the table as one flat table within [`WIDTH`], two spaces
    /// apart (or else one, where `tight`), rather than folding its keys onto lines of
    /// their own.
    pub fn fits(&self, tight: bool) -> bool {
        let (cols, key, rows) = self.shown(false);
        let rows: Vec<(Vec<String>, Vec<String>)> = rows
            .into_iter()
            .map(|mut r| {
                let values = r.split_off(key);
                (r, values)
            })
            .collect();
        match tight {
            true => fits_tight(&cols[..key], &cols[key..], &rows),
            false => fits(&cols[..key], &cols[key..], &rows),
        }
    }

    /// The table as text within [`WIDTH`], as [`render_keyed`] folds it.
    pub fn text_keyed(&self) -> String {
        let (cols, key, rows) = self.shown(false);
        let rows: Vec<(Vec<String>, Vec<String>)> = rows
            .into_iter()
            .map(|mut r| {
                let values = r.split_off(key);
                (r, values)
            })
            .collect();
        render_keyed(&cols[..key], &cols[key..], &rows)
    }

    /// The table as Markdown, as [`markdown`] writes it.
    pub fn markdown(&self) -> String {
        let (cols, _, rows) = self.shown(true);
        markdown(&cols, &rows)
    }

    /// The table as CSV: a header line, then a line per row, the text's values
    /// uncut. Columns shown only in text or only in Markdown are left out.
    pub fn csv(&self) -> String {
        let keep: Vec<usize> = (0..self.columns.len())
            .filter(|&i| self.columns[i].shown == Shown::Everywhere)
            .collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(keep.iter().map(|&i| &self.columns[i].header))
            .expect("in memory");
        for r in &self.rows {
            w.write_record(keep.iter().map(|&i| &r[i].text))
                .expect("in memory");
        }
        String::from_utf8(w.into_inner().expect("in memory")).expect("CSV of UTF-8 strings")
    }
}

/// A note under a section's tables. A section states its notes once, beside its tables,
/// and the text and Markdown writers each set them in their own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// What the tables' columns and marks mean, as a paragraph.
    Legend(String),
    /// A remark about part of the results, such as a warning or a figure that could
    /// not be had. Text hangs its later lines by two spaces, and Markdown quotes it.
    Remark(String),
}

impl Note {
    /// The note as text, wrapped to [`WIDTH`].
    pub fn text(&self) -> String {
        match self {
            Note::Legend(s) => wrap(s, 0),
            Note::Remark(s) => wrap(s, 2),
        }
    }

    /// The note as a Markdown block, with a blank line before it.
    pub fn markdown(&self) -> String {
        match self {
            Note::Legend(s) => format!("\n{s}\n"),
            Note::Remark(s) => format!("\n> {s}\n"),
        }
    }
}

/// The notes as text, one after the other.
pub fn notes_text(notes: &[Note]) -> String {
    notes.iter().map(Note::text).collect()
}

/// Remarks as text, one note each.
pub fn remarks_text<S: Into<String>>(remarks: impl IntoIterator<Item = S>) -> String {
    (remarks.into_iter())
        .map(|r| Note::Remark(r.into()).text())
        .collect()
}

/// The notes as Markdown, a block each.
pub fn notes_markdown(notes: &[Note]) -> String {
    notes.iter().map(Note::markdown).collect()
}

/// Cuts a name to `max` characters, marking the cut with `..`.
pub fn fit(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_owned()
    } else {
        name.chars().take(max - 2).collect::<String>() + ".."
    }
}

/// Wraps prose to [`WIDTH`] columns; continuation lines get `indent` spaces. Words
/// longer than a line (paths) are broken.
pub fn wrap(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    // Never split at a hyphen: `--exclude-outliers` and kernel names stay whole.
    let options = textwrap::Options::new(WIDTH)
        .subsequent_indent(&pad)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(text, options) + "\n"
}

// Numbers. Every figure the text and Markdown reports print is written by one of the
// functions below, so that one quantity reads the same in every table.
//
// Milliseconds have two rules, on purpose. [`ms`] writes costs and times a reader
// compares across rows and labels: whole numbers from 100 ms on, since a tenth of a
// millisecond in 1866 is noise. [`ms_tenths`] writes the explaining tables' figures
// (a phase's growth with pretouch, the JVM log's pretouch and Genesis times), always
// to a tenth: they are small parts of a cost, read beside each other, where 312.4
// and 312.0 are different claims about where the time went.

/// Milliseconds for a table: whole numbers from 100 ms on (a reviewer reads 1866, not
/// 1866.0), one decimal below.
pub fn ms(v: f64) -> String {
    if v.abs() >= 99.95 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Milliseconds always to a tenth: the explaining tables' figures (see above).
pub fn ms_tenths(v: f64) -> String {
    format!("{v:.1}")
}

/// [`ms_tenths`] always signed: `+0.0`, `-2.5`.
pub fn signed_ms_tenths(v: f64) -> String {
    format!("{v:+.1}")
}

/// [`ms`] with a `+` on positive values, for changes.
pub fn signed_ms(v: f64) -> String {
    let s = ms(v);
    if v > 0.0 && !s.starts_with('-') && !s.trim_start_matches(['0', '.']).is_empty() {
        format!("+{s}")
    } else {
        s
    }
}

/// A change across labels in ms, always signed: no change at all reads `+0.0`, as its
/// `+0.0%` does ([`signed_pct`]).
pub fn change_ms(v: f64) -> String {
    let s = signed_ms(v);
    if s.starts_with(['+', '-']) {
        s
    } else {
        format!("+{s}")
    }
}

/// A count or a rate, four digits from a thousand on: `2.360M`, `323.4k`, `950`. Every
/// fault count and faults/s of every report (calibrations, the explaining tables).
pub fn count(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if v.abs() >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Nanoseconds as microseconds, three significant figures: `3.21`, `45.6`, `789`.
/// Every fault latency of the probe's tables.
pub fn us(ns: f64) -> String {
    let v = ns / 1000.0;
    match v.abs() {
        a if a < 10.0 => format!("{v:.2}"),
        a if a < 100.0 => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    }
}

/// [`us`] signed, for a shift: `+1.20`, `-0.45`, and `0.00` without a sign.
pub fn signed_us(ns: f64) -> String {
    let s = us(ns);
    let zero = s
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.');
    match (zero, s.starts_with('-')) {
        (true, _) => s.trim_start_matches('-').to_owned(),
        (false, true) => s,
        (false, false) => format!("+{s}"),
    }
}

/// A count with a k or M suffix from 10,000 on, one decimal, as lkp prints large
/// counters: `9500`, `12.3k`, `45.6M`. The probe's tables (fault and lock counts),
/// where four digits below ten thousand read better than [`count`]'s `9.5k`.
pub fn lkp_count(v: f64) -> String {
    match v {
        v if v >= 10_000_000.0 => format!("{:.1}M", v / 1e6),
        v if v >= 10_000.0 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

/// Whole milliseconds, for an outlier's time and its cell's median beside it: `1246`,
/// `57`.
pub fn whole_ms(v: f64) -> String {
    format!("{v:.0}")
}

/// A whole number [`whole`] writes: one of the report's counts.
pub trait Whole: Copy + std::fmt::Display {}
impl Whole for u32 {}
impl Whole for u64 {}
impl Whole for usize {}

/// A count every digit of which is read: rounds, runs, launches, outliers, samples,
/// lock waits (`30`, `12034`). Where four figures are enough, [`count`] and
/// [`lkp_count`] write a count.
pub fn whole(n: impl Whole) -> String {
    n.to_string()
}

/// A folio or fault size: `4K`, `64K`, `2M`; `-` when the kernel counted no fault.
pub fn fault_size(bytes: Option<f64>) -> String {
    match bytes {
        Some(b) if b >= 1.5 * (1 << 20) as f64 => format!("{:.0}M", b / (1 << 20) as f64),
        Some(b) => format!("{:.0}K", b / 1024.0),
        None => "-".to_owned(),
    }
}

/// Bytes in binary units, as `units::Bytes` writes them: `1.0 GiB`, `22.7 MiB`.
pub fn bytes(v: f64) -> String {
    crate::units::Bytes(v.round() as u64).to_string()
}

/// [`count`] always signed, for a change of a rate: `+1.200M`, `-950`.
pub fn signed_count(v: f64) -> String {
    format!("{}{}", if v >= 0.0 { "+" } else { "-" }, count(v.abs()))
}

/// A percentage to `decimals` places: `12%`, `12.3%`.
pub fn pct(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}%")
}

/// A confidence as every output states it, in % to a tenth without a trailing zero:
/// `95%`, `97.5%`, `99.2%`.
pub fn confidence(c: f64) -> String {
    format!("{}%", (c * 1000.0).round() / 10.0)
}

/// A fraction (a probability) to `decimals` places: `0.05`.
pub fn fraction(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

/// A change in percent, always signed, to a tenth: `-25.9%`, `+0.0%`.
pub fn signed_pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// A change of a share in percentage points, to a tenth, `+` from +0.1 on (the
/// kernel test robot's `%change` of a profile share).
pub fn pp(v: f64) -> String {
    if v > 0.05 {
        format!("+{v:.1}")
    } else {
        format!("{v:.1}")
    }
}

/// [`ms`], `-` when absent.
pub fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), ms)
}

/// [`ms_tenths`], `-` when absent.
pub fn opt_ms_tenths(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), ms_tenths)
}

/// [`signed_ms`], `-` when absent.
pub fn opt_signed_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), signed_ms)
}

/// [`count`], `-` when absent.
pub fn opt_count(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), count)
}

/// [`pct`], `-` when absent.
pub fn opt_pct(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| pct(v, decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legend_is_a_paragraph_and_a_remark_hangs_in_text_and_is_quoted_in_markdown() {
        let long = "word ".repeat(20);
        let notes = [
            Note::Legend(long.trim_end().to_owned()),
            Note::Remark(format!("warning: {}", long.trim_end())),
        ];
        let text = notes_text(&notes);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].starts_with("word"), "{text}");
        assert!(lines[2].starts_with("warning: word"), "{text}");
        assert!(lines[3].starts_with("  word"), "{text}");
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{text}");
        let md = notes_markdown(&notes);
        assert_eq!(
            md,
            format!("\n{}\n\n> warning: {}\n", long.trim_end(), long.trim_end())
        );
    }

    #[test]
    fn the_two_millisecond_rules_and_the_signed_forms() {
        assert_eq!(
            (ms(312.44), ms_tenths(312.44)),
            ("312".into(), "312.4".into())
        );
        assert_eq!(
            (ms(99.94), ms_tenths(99.94)),
            ("99.9".into(), "99.9".into())
        );
        assert_eq!(signed_ms(0.0), "0.0");
        assert_eq!(change_ms(0.0), "+0.0");
        assert_eq!(change_ms(-318.2), "-318");
        assert_eq!(signed_ms_tenths(-0.04), "-0.0");
        assert_eq!(signed_count(-1.2e6), "-1.200M");
        assert_eq!(
            (pct(12.34, 0), pct(12.34, 1)),
            ("12%".into(), "12.3%".into())
        );
        assert_eq!(signed_pct(0.0), "+0.0%");
        assert_eq!(fraction(1.0 - 0.95, 2), "0.05");
        assert_eq!(
            (whole(12_034u64), whole(7usize)),
            ("12034".into(), "7".into())
        );
        assert_eq!((pp(0.04), pp(0.06)), ("0.0".into(), "+0.1".into()));
    }

    #[test]
    fn keyed_tables_fold_when_too_wide() {
        let rows = vec![(
            vec![
                "a-very-long-jdk-version-name".to_owned(),
                "variant-x".to_owned(),
            ],
            vec!["1".repeat(30), "2".repeat(20)],
        )];
        let out = render_keyed(
            &[name("jdk"), name("variant")],
            &[num("a"), num("b")],
            &rows,
        );
        assert!(width(&out) <= WIDTH, "{out}");
        assert!(
            out.lines()
                .nth(1)
                .unwrap()
                .starts_with("a-very-long-jdk-version-name variant-x")
        );
        // 73 columns two spaces apart, 71 one space apart: one space.
        let tight = vec![(vec!["k".repeat(30)], vec!["1".repeat(20), "2".repeat(19)])];
        let out = render_keyed(&[name("key")], &[num("a"), num("b")], &tight);
        assert_eq!(out.lines().count(), 2, "{out}");
        assert_eq!(width(&out), 71, "{out}");
        let short = vec![(vec!["17".to_owned()], vec!["1.0".to_owned()])];
        assert_eq!(
            render_keyed(&[name("jdk")], &[num("ms")], &short),
            "jdk   ms\n17   1.0\n"
        );
    }

    #[test]
    fn one_table_gives_each_format_its_columns_and_values() {
        let columns = vec![
            Column::name("gc"),
            Column::name("function").code().fit(6),
            Column::num("ms").wide_header("ms (min-max)"),
            Column::num("note").shown(Shown::Text),
            Column::num("runs").shown(Shown::Wide),
        ];
        let mut t = Table::new(columns).keyed(1).key_once();
        t.push([
            Cell::from("g1"),
            "clear_page_erms".into(),
            Cell::wide("1.0".into(), "1.0 (0.9-1.2)".into()),
            "x".into(),
            "3".into(),
        ]);
        t.push(["g1", "memset", "2.0", "y", "4"]);
        assert_eq!(
            t.text(0),
            "gc  function   ms  note\ng1  clea..    1.0     x\n    memset    2.0     y\n"
        );
        assert_eq!(
            t.markdown(),
            "| gc | function | ms (min-max) | runs |\n|---|---|---:|---:|\n\
             | g1 | `clear_page_erms` | 1.0 (0.9-1.2) | 3 |\n| g1 | `memset` | 2.0 | 4 |\n"
        );
        assert_eq!(
            t.csv(),
            "gc,function,ms\ng1,clear_page_erms,1.0\ng1,memset,2.0\n"
        );
        let picked = t.pick(&[0, 2]);
        assert_eq!((picked.key, picked.columns.len()), (1, 2));
        assert_eq!(t.rows_where(|r| r[1].text == "memset").rows.len(), 1);
    }

    #[test]
    fn parts_line_up_in_text_and_take_a_column_each_in_markdown() {
        let parts = vec![
            Part::new("B ms"),
            Part::new("B change %").unit("%").apart(),
            Part::new("interval %"),
            Part::mark(1),
        ];
        let columns = vec![
            Column::name("jdk"),
            Column::name("gc"),
            Column::parts("B", parts),
        ];
        let mut t = Table::new(columns).keyed(2);
        let cell = |figures: [Option<&str>; 4]| {
            Cell::parts(figures.map(|f| f.map(str::to_owned)).to_vec())
        };
        let g1 = [
            Some("284"),
            Some("-25.9%"),
            Some("[-29.5, +147.9]"),
            Some("*"),
        ];
        let parallel = [Some("1396"), Some("+0.1%"), Some("no CI"), Some("")];
        t.push([Cell::from("17"), Cell::from("g1"), cell(g1)]);
        t.push([Cell::from("17"), Cell::from("parallel"), cell(parallel)]);
        t.push([
            Cell::from("17"),
            Cell::from("serial"),
            cell([Some("-"), None, None, None]),
        ]);
        let geomean = [Some(""), Some("-13.9%"), Some("[-17.3, +58.4]"), None];
        t.push_summary("geomean", [cell(geomean)]);
        // The summary is named in the first key column each format shows.
        insta::assert_snapshot!(t.pick(&[1, 2]).text(0), @"
        gc        B
        g1         284  -25.9% [-29.5, +147.9] *
        parallel  1396   +0.1%           no CI
        serial       -
        geomean         -13.9%  [-17.3, +58.4]
        ");
        insta::assert_snapshot!(t.markdown(), @"
        | jdk | gc | B ms | B change % | interval % |
        |---|---|---:|---:|---:|
        | 17 | g1 | 284 | -25.9* | [-29.5, +147.9] |
        | 17 | parallel | 1396 | +0.1 | no CI |
        | 17 | serial | - | - | - |
        | geomean |  |  | -13.9 | [-17.3, +58.4] |
        ");
        insta::assert_snapshot!(t.csv(), @r#"
        jdk,gc,B
        17,g1,"284 -25.9% [-29.5, +147.9] *"
        17,parallel,1396 +0.1% no CI
        17,serial,-
        ,,"-13.9% [-17.3, +58.4]"
        "#);
        let no_summary = t.rows_where(|r| !r[1].text.is_empty());
        assert_eq!((no_summary.rows.len(), no_summary.summary), (3, None));
    }

    #[test]
    fn markdown_aligns_numbers_right() {
        let rows = vec![vec!["g1".to_owned(), "1.0\n2".to_owned()]];
        assert_eq!(
            markdown(&[name("gc"), num("ms")], &rows),
            "| gc | ms |\n|---|---:|\n| g1 | 1.0 2 |\n"
        );
    }

    #[test]
    fn numbers_read_like_a_cover_letter() {
        assert_eq!(ms(1866.4), "1866");
        assert_eq!(ms(29.74), "29.7");
        assert_eq!(signed_ms(12.0), "+12.0");
        assert_eq!(signed_ms(-213.0), "-213");
        assert_eq!(signed_ms(0.0), "0.0");
        assert_eq!(count(2.36e6), "2.360M");
        assert_eq!(count(323_440.0), "323.4k");
        assert_eq!(count(-950.0), "-950");
        assert!(
            wrap(&"word ".repeat(40), 2)
                .lines()
                .all(|l| l.len() <= WIDTH)
        );
    }
}
