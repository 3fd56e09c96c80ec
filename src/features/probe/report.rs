//! Stage 6, rendering: the probes' section of the report, its render half
//! (`render::section::Section`). The tables are `features::probe::render`'s; this
//! file places them in each format, sets the `probes` key of the JSON, draws the
//! fault-latency histograms of the HTML page, and writes the files `--probe-csv FILE`
//! and `--probe-svg DIR` ask for.

use crate::analyze::document::Launches;
use crate::features::probe::analyze::ProbeAnalysis;
use crate::features::probe::plot;
use crate::features::probe::render as probe;
use crate::render::common::Format;
use crate::render::section::{
    Figure, HtmlSection, Picture, Place, Section, SideError, SideFile, SideOutput, SideRequest,
};

/// The probes' section, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

impl Section for SectionWriter {
    fn place(&self) -> Place {
        Place::Last
    }

    fn text(&self, l: &Launches) -> String {
        l.part::<ProbeAnalysis>()
            .map(probe::text)
            .unwrap_or_default()
    }

    fn markdown(&self, l: &Launches) -> String {
        l.part::<ProbeAnalysis>()
            .map(probe::markdown)
            .unwrap_or_default()
    }

    /// `run --probe`: fault latency and lock waits per cell, label and pretouch, the
    /// labels' shifts of p50 and p99, and what was not measured.
    fn json(&self, l: &Launches) -> Option<(&'static str, String)> {
        let probes = l.part::<ProbeAnalysis>()?;
        let json = serde_json::to_string_pretty(probes).expect("the probes always serialize");
        Some(("probes", json))
    }

    fn html(&self, l: &Launches) -> Option<HtmlSection> {
        let probes = l.part::<ProbeAnalysis>()?;
        Some(HtmlSection {
            id: "probes",
            heading: "Fault latency and lock wait",
            markdown: probe::markdown(probes),
            figures: fault_latency(probes),
        })
    }

    fn side_files(
        &self,
        l: Option<&Launches>,
        request: &SideRequest,
    ) -> Vec<Result<SideOutput, SideError>> {
        let probes = l.and_then(|l| l.part::<ProbeAnalysis>());
        let mut out: Vec<_> = rows(probes, request).into_iter().collect();
        if out.iter().all(Result::is_ok) {
            out.extend(pictures(probes, request));
        }
        out
    }
}

/// Each probed cell's fault-latency histograms, as `report --probe-svg DIR` draws them.
fn fault_latency(a: &ProbeAnalysis) -> Vec<Figure> {
    a.cell_keys()
        .into_iter()
        .map(|cell| Figure {
            picture: plot::svg(a, cell)
                .map(Picture::Inline)
                .map_err(|e| e.to_string()),
            caption: format!(
                "{}: page fault latency from exec to main(), share of each label's faults per eighth-octave bucket (run --probe).",
                probe::cell_title(cell)
            ),
        })
        .collect()
}

/// `--probe-csv FILE`: the probed launches' rows. Without it, the printed CSV says
/// where they go when there are some.
fn rows(
    probes: Option<&ProbeAnalysis>,
    request: &SideRequest,
) -> Option<Result<SideOutput, SideError>> {
    let Some(path) = &request.features.probe.probe_csv else {
        return (probes.is_some() && request.format == Format::Csv).then(|| {
            Ok(SideOutput::note(
                "note: the CSV printed holds the report's rows; `--probe-csv FILE` writes the \
                 probed launches' rows into FILE"
                    .to_owned(),
            ))
        });
    };
    let Some(probes) = probes else {
        return Some(Err(no_probes("--probe-csv")));
    };
    Some(Ok(SideOutput::file(
        path,
        probe::csv(probes).into_bytes(),
        format!("probes: {}", path.display()),
    )))
}

/// `flag` of results without a probe record.
fn no_probes(flag: &str) -> SideError {
    SideError::Missing(format!(
        "{flag}: no probed launches in these results\n  fix: record some with `pretouch run --probe`"
    ))
}

/// `--probe-svg DIR`: an SVG per probed cell, the labels' fault latency overlaid.
fn pictures(
    probes: Option<&ProbeAnalysis>,
    request: &SideRequest,
) -> Option<Result<SideOutput, SideError>> {
    let dir = request.features.probe.probe_svg.as_ref()?;
    let Some(probes) = probes else {
        return Some(Err(no_probes("--probe-svg")));
    };
    let writing = format!("drawing into `{}`", dir.display());
    let mut files = Vec::new();
    for cell in probes.cell_keys() {
        match plot::svg(probes, cell) {
            Ok(svg) => files.push(SideFile {
                path: dir.join(plot::file_name(cell)),
                bytes: svg.into_bytes(),
            }),
            Err(e) => return Some(Err(SideError::drawing(writing, e))),
        }
    }
    Some(Ok(SideOutput {
        dir: Some(dir.clone()),
        note: format!("fault latency: {} files in {}", files.len(), dir.display()),
        files,
        writing,
    }))
}
