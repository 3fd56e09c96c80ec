//! Stage 6, NUMA: the table of how each cell's heap spread over the NUMA nodes at
//! `main()`, with pretouch and without it, which text and Markdown both walk.

use crate::features::numa::analyze::{NumaAnalysis, NumaCell};
use crate::machine::jdk::short_jdk;
use crate::render::table::{self, Column, Table};

/// The section's heading.
pub const HEADING: &str = "Heap per NUMA node at main()";

/// What the table's columns mean, under it.
pub const LEGEND: &str = "MiB of the heap on each node: the median over the cell's launches of \
    the pages numa_maps counted on that node at main(). busiest: the share of the heap on the \
    node that holds the most of it. policy: the memory policies of the heap's mappings, as \
    numa_maps names them. With -XX:+UseNUMA the JVM gives parts of the heap a policy \
    for their node, such as G1's `prefer` for each region.";

/// A cell as the table names it: JDK, collector, heap and variant, with its axes.
fn cell_name(c: &NumaCell) -> String {
    format!(
        "{} {} {} {}{}",
        short_jdk(&c.cell.jdk),
        c.cell.gc,
        c.cell.heap,
        c.cell.variant,
        c.cell.features.words()
    )
}

/// A row per cell, label and pretouch setting: the launches counted, the median MiB on
/// each node, the share on the busiest node and the policies.
pub fn table(a: &NumaAnalysis) -> Table {
    let mut columns = vec![
        Column::name("label"),
        Column::name("cell"),
        Column::name("pt"),
        Column::num("n"),
    ];
    columns.extend(a.nodes.iter().map(|n| Column::num(format!("node {n}"))));
    columns.push(Column::num("busiest"));
    columns.push(Column::name("policy"));
    Table::new(columns).with_rows(a.cells.iter().map(|c| {
        let mut row = vec![
            c.label.clone(),
            cell_name(c),
            if c.pretouch { "on" } else { "off" }.to_owned(),
            c.launches.len().to_string(),
        ];
        row.extend((c.median_mib.values()).map(|mib| format!("{mib:.1}")));
        row.push(
            c.busiest_pct()
                .map_or("-".to_owned(), |p| format!("{p:.0}%")),
        );
        row.push(c.policies.join(","));
        row
    }))
}

/// The section in plain text: its heading, its table and its legend.
pub fn text(a: &NumaAnalysis) -> String {
    format!(
        "{HEADING}\n\n{}\n{}\n",
        table(a).text(2),
        table::wrap(LEGEND, 2)
    )
}

/// The section in Markdown.
pub fn markdown(a: &NumaAnalysis) -> String {
    format!("## {HEADING}\n\n{}\n{LEGEND}\n", table(a).markdown())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::features::numa::launch::HeapNodes;
    use crate::units::Bytes;

    #[test]
    fn the_table_shows_each_node_and_the_busiest() {
        let launch = HeapNodes {
            pages: BTreeMap::from([(0, 49152), (1, 16384)]),
            page_size: Bytes(4096),
            policies: vec!["default".to_owned()],
            mappings: 1,
        };
        let a = NumaAnalysis {
            nodes: vec![0, 1],
            cells: vec![NumaCell {
                label: "base".to_owned(),
                cell: crate::fixtures::launch(0, true, 100.0).cell,
                pretouch: true,
                median_mib: BTreeMap::from([(0, 192.0), (1, 64.0)]),
                policies: vec!["default".to_owned()],
                launches: vec![launch],
            }],
        };
        let text = text(&a);
        assert!(text.starts_with("Heap per NUMA node at main()"), "{text}");
        let row = text.lines().find(|l| l.contains("base")).unwrap();
        for value in ["on", "192.0", "64.0", "75%", "default"] {
            assert!(row.contains(value), "{value} missing from {row}");
        }
        assert!(markdown(&a).contains("| node 0 |"), "{}", markdown(&a));
    }
}
