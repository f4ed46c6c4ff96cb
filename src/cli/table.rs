//! The one table writer of the command line: every table a command prints is a [`Table`] of
//! already formatted cells, written as aligned text or Markdown by `comfy-table` and as CSV
//! by `csv` — so quoting, escaping and alignment are done once, by well-kept crates.

use comfy_table::presets::{ASCII_MARKDOWN, NOTHING};
use comfy_table::{CellAlignment, ContentArrangement};

/// The cell of a value that is absent (no expected shuffle count, a cost not measured): a dash
/// in text and Markdown, an empty field in CSV.
pub const EMPTY: &str = "—";

/// How a table is written (`--csv`, `--markdown`, or neither).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for a terminal.
    Text,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// RFC 4180 CSV, header line first.
    Csv,
}

/// `--json`, `--csv` and `--markdown`: the output formats of a command that prints a table.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct OutputArgs {
    /// Print JSON (one document; see docs/cli.md for the common fields).
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print the table as CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print the table as Markdown.
    #[arg(long)]
    pub markdown: bool,
}

impl OutputArgs {
    /// The table format chosen (JSON is the caller's branch).
    pub fn format(&self) -> Format {
        Format::from_flags(self.csv, self.markdown)
    }
}

impl Format {
    /// The format that `--csv` and `--markdown` choose (text when neither is given).
    pub fn from_flags(csv: bool, markdown: bool) -> Format {
        if csv {
            Format::Csv
        } else if markdown {
            Format::Markdown
        } else {
            Format::Text
        }
    }
}

/// A table: a header and rows of text cells, some columns right-aligned; an absent value is
/// the cell [`EMPTY`].
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    right: Vec<usize>,
}

impl Table {
    /// A table with these column names.
    pub fn new<S: AsRef<str>>(header: &[S]) -> Table {
        Table {
            header: header.iter().map(|h| h.as_ref().to_owned()).collect(),
            ..Table::default()
        }
    }

    /// Right-aligns these columns (numbers) in text and Markdown.
    pub fn right_aligned(mut self, columns: impl IntoIterator<Item = usize>) -> Table {
        self.right.extend(columns);
        self
    }

    /// Adds a row (as many cells as the header has columns).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table written in `format`, ending with a newline.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Csv => self.csv(),
            Format::Text => self.comfy(NOTHING, false),
            Format::Markdown => self.comfy(ASCII_MARKDOWN, true),
        }
    }

    /// Prints the table in `format`.
    pub fn print(&self, format: Format) {
        print!("{}", self.render(format));
    }

    fn comfy(&self, preset: &str, markdown: bool) -> String {
        let escape = |s: &String| {
            if markdown {
                s.replace('|', "\\|")
            } else {
                s.clone()
            }
        };
        let mut t = comfy_table::Table::new();
        t.load_preset(preset)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(self.header.iter().map(escape).collect::<Vec<_>>());
        for r in &self.rows {
            t.add_row(r.iter().map(escape).collect::<Vec<_>>());
        }
        for &c in &self.right {
            if let Some(col) = t.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        let text: Vec<String> = t.lines().map(|l| l.trim_end().to_owned()).collect();
        let mut out = if markdown {
            text.join("\n")
        } else {
            // The NOTHING preset pads every cell with one space on each side: drop the
            // leading one so columns start at the margin.
            text.iter()
                .map(|l| l.strip_prefix(' ').unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n")
        };
        out.push('\n');
        out
    }

    fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        // Writing to memory cannot fail; a record of the wrong length is our bug, and the
        // writer is flexible so it is written rather than lost.
        let _ = w.write_record(&self.header);
        for r in &self.rows {
            let _ = w.write_record(r.iter().map(|c| if c == EMPTY { "" } else { c }));
        }
        let bytes = w.into_inner().unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
