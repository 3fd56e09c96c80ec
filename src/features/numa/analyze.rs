//! Stage 5, NUMA: how each cell's heap spread over the NUMA nodes at `main()`, with
//! pretouch and without it: the median over the cell's launches of the heap's memory on
//! each node, and each launch's pages as it recorded them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::features::numa::launch::HeapNodes;
use crate::stats::median;
use crate::store::{CellKey, LaunchRecord};

/// The heap's spread of one cell's launches of one label with or without pretouch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumaCell {
    /// The label the launches are shown under.
    pub label: String,
    /// The cell, as the result file keys it.
    pub cell: CellKey,
    /// The launches ran with `-XX:+AlwaysPreTouch`.
    pub pretouch: bool,
    /// The median over the launches of the heap's MiB on each node of
    /// [`NumaAnalysis::nodes`], a launch without pages on a node counting 0 there.
    pub median_mib: BTreeMap<u32, f64>,
    /// The memory policies of the heap's mappings over the launches, each once.
    pub policies: Vec<String>,
    /// Each launch's pages per node, in the order the launches ran.
    pub launches: Vec<HeapNodes>,
}

impl NumaCell {
    /// The median MiB on every node together.
    pub fn total_mib(&self) -> f64 {
        self.median_mib.values().sum()
    }

    /// The share of the heap on the node that holds the most of it, in percent; `None`
    /// when no page of the heap was counted.
    pub fn busiest_pct(&self) -> Option<f64> {
        let total = self.total_mib();
        let most = self.median_mib.values().copied().fold(0.0, f64::max);
        (total > 0.0).then(|| 100.0 * most / total)
    }
}

/// The NUMA section's part of the report: every cell whose launches recorded the heap's
/// pages per node.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NumaAnalysis {
    /// Every node that held a page of a heap in some launch, in order.
    pub nodes: Vec<u32>,
    /// The cells, by label, cell and pretouch, without pretouch first.
    pub cells: Vec<NumaCell>,
}

/// What the section keeps of the labels' launches: each counted launch's pages per node,
/// by label, cell and pretouch, in the order the launches ran.
pub type Gathered = BTreeMap<(String, CellKey, bool), Vec<HeapNodes>>;

/// Keeps the pages per node of `launch`, shown under `label`, when it counts: not a
/// warm-up, reached `main()` and did not fail, and recorded them.
pub fn keep(gathered: &mut Gathered, label: &str, launch: &LaunchRecord) {
    if launch.warmup || !launch.ok() {
        return;
    }
    if let Some(nodes) = &launch.measured.features.numa {
        gathered
            .entry((label.to_owned(), launch.cell.clone(), launch.pretouch))
            .or_default()
            .push(HeapNodes::clone(nodes));
    }
}

/// The analysis of what was gathered, `None` when no launch recorded the heap's pages
/// per node. Labels come in the order of `labels`.
pub fn build(gathered: Gathered, labels: &[String]) -> Option<NumaAnalysis> {
    let nodes: BTreeSet<u32> = gathered
        .values()
        .flatten()
        .flat_map(|n| n.pages.keys().copied())
        .collect();
    let mut cells: Vec<NumaCell> = gathered
        .into_iter()
        .map(|((label, cell, pretouch), launches)| {
            let median_mib = nodes
                .iter()
                .map(|&node| {
                    let mib: Vec<f64> = launches
                        .iter()
                        .map(|l| l.bytes_on(node).0 as f64 / (1 << 20) as f64)
                        .collect();
                    (node, median(&mib).unwrap_or(0.0))
                })
                .collect();
            let mut policies: Vec<String> = Vec::new();
            for p in launches.iter().flat_map(|l| &l.policies) {
                if !policies.contains(p) {
                    policies.push(p.clone());
                }
            }
            NumaCell {
                label,
                cell,
                pretouch,
                median_mib,
                policies,
                launches,
            }
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let rank = |label: &str| labels.iter().position(|l| l == label).unwrap_or(usize::MAX);
    cells.sort_by(|a, b| {
        (rank(&a.label), &a.cell, a.pretouch).cmp(&(rank(&b.label), &b.cell, b.pretouch))
    });
    Some(NumaAnalysis {
        nodes: nodes.into_iter().collect(),
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    fn nodes(pages: &[(u32, u64)]) -> HeapNodes {
        HeapNodes {
            pages: pages.iter().copied().collect(),
            page_size: Bytes(4096),
            policies: vec!["default".to_owned()],
            mappings: 1,
        }
    }

    #[test]
    fn each_cell_has_the_median_of_its_launches_on_every_node() {
        let cell = crate::fixtures::launch(0, true, 100.0).cell;
        let mut gathered = Gathered::new();
        // 256 MiB pretouched over two nodes, three launches; without pretouch, a few
        // pages on node 0 alone.
        gathered.insert(
            ("base".to_owned(), cell.clone(), true),
            vec![
                nodes(&[(0, 32768), (1, 32768)]),
                nodes(&[(0, 30000), (1, 35536)]),
                nodes(&[(0, 40000), (1, 25536)]),
            ],
        );
        gathered.insert(
            ("base".to_owned(), cell.clone(), false),
            vec![nodes(&[(0, 512)])],
        );
        let a = build(gathered, &["base".to_owned()]).unwrap();
        assert_eq!(a.nodes, [0, 1]);
        let (off, on) = (&a.cells[0], &a.cells[1]);
        assert!(!off.pretouch && on.pretouch);
        assert_eq!(off.median_mib, BTreeMap::from([(0, 2.0), (1, 0.0)]));
        assert_eq!(off.busiest_pct(), Some(100.0));
        assert_eq!(on.median_mib, BTreeMap::from([(0, 128.0), (1, 128.0)]));
        assert_eq!(on.total_mib(), 256.0);
        assert_eq!(on.busiest_pct(), Some(50.0));
        assert_eq!(on.launches.len(), 3);
        assert_eq!(build(Gathered::new(), &[]), None);
    }
}
