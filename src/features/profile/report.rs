//! Stage 6, rendering: the profile's section of the report, its render half
//! (`render::section::Section`). The tables are `features::profile::render`'s; this
//! file places them in each format when the report shows the profile (`--profile`),
//! sets the `profile` key of the JSON, puts the flame graphs in the HTML page, and
//! writes the files `--flamegraph DIR` and `--profile-csv FILE` ask for.

use crate::analyze::document::Launches;
use crate::features::profile::analyze::ProfileReport;
use crate::features::profile::flamegraph;
use crate::features::profile::render as profile;
use crate::features::profile::section::ProfileSection;
use crate::render::common::Format;
use crate::render::section::{
    Figure, HtmlSection, Picture, Place, Section, SideError, SideFile, SideOutput, SideRequest,
};

/// The profile's section, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

/// The profile, when the report shows it.
fn shown(l: &Launches) -> Option<&ProfileReport> {
    l.part::<ProfileSection>()?.shown()
}

impl Section for SectionWriter {
    fn place(&self) -> Place {
        Place::Last
    }

    fn text(&self, l: &Launches) -> String {
        shown(l)
            .map(|p| format!("\n{}", profile::text(p)))
            .unwrap_or_default()
    }

    fn markdown(&self, l: &Launches) -> String {
        shown(l)
            .map(|p| format!("\n{}", profile::markdown(p)))
            .unwrap_or_default()
    }

    /// `report --profile`: where the pretouch time goes in the kernel, per cell and
    /// label, and each label's shift against the baseline.
    fn json(&self, l: &Launches) -> Option<(&'static str, String)> {
        let json = serde_json::to_string_pretty(shown(l)?).expect("a profile always serializes");
        Some(("profile", json))
    }

    /// The page shows the profile whenever the results hold one, with or without
    /// `--profile`.
    fn html(&self, l: &Launches) -> Option<HtmlSection> {
        let p = &l.part::<ProfileSection>()?.report;
        Some(HtmlSection {
            id: "profile",
            heading: "Kernel profile and flame graphs",
            markdown: profile::markdown(p),
            figures: flame_graphs(p),
        })
    }

    fn side_files(
        &self,
        l: Option<&Launches>,
        request: &SideRequest,
    ) -> Vec<Result<SideOutput, SideError>> {
        let p = l
            .and_then(|l| l.part::<ProfileSection>())
            .map(|p| &p.report);
        let mut out = Vec::new();
        for made in [graphs(p, request), note(request), rows(p, request)]
            .into_iter()
            .flatten()
        {
            let failed = made.is_err();
            out.push(made);
            if failed {
                break;
            }
        }
        out
    }
}

/// The flame graphs `report --flamegraph DIR` writes, without their script, as images
/// (their styles are their own).
fn flame_graphs(p: &ProfileReport) -> Vec<Figure> {
    match flamegraph::graphs(p, false) {
        Ok(graphs) => graphs
            .into_iter()
            .map(|(name, svg)| Figure {
                picture: Ok(Picture::Image(svg)),
                caption: format!("flame graph {name} (as `report --flamegraph DIR` names it)"),
            })
            .collect(),
        Err(e) => vec![Figure {
            picture: Err(e.to_string()),
            caption: "flame graphs".to_owned(),
        }],
    }
}

/// `--flamegraph DIR`: an SVG per cell and label, two differential ones per cell.
fn graphs(
    profile: Option<&ProfileReport>,
    request: &SideRequest,
) -> Option<Result<SideOutput, SideError>> {
    let dir = request.features.profile.flamegraph.as_ref()?;
    let profile = profile?;
    if profile.cells.iter().all(|c| c.stacks.is_empty()) {
        return Some(Err(SideError::Missing(
            "--flamegraph: no profiled launches with samples in these results\n  fix: \
             record some with `pretouch run --profile`"
                .to_owned(),
        )));
    }
    let writing = format!("writing flame graphs into `{}`", dir.display());
    let graphs = match flamegraph::graphs(profile, true) {
        Ok(g) => g,
        Err(e) => return Some(Err(SideError::drawing(writing, e))),
    };
    let files: Vec<SideFile> = graphs
        .into_iter()
        .map(|(name, bytes)| SideFile {
            path: dir.join(name),
            bytes,
        })
        .collect();
    Some(Ok(SideOutput {
        dir: Some(dir.clone()),
        note: format!("flame graphs: {} files in {}", files.len(), dir.display()),
        files,
        writing,
    }))
}

/// `--profile --format csv` without `--profile-csv`: CSV holds one table a file, the
/// report's rows here, the profile's apart.
fn note(request: &SideRequest) -> Option<Result<SideOutput, SideError>> {
    let asked = &request.features;
    (asked.profile.profile && request.format == Format::Csv && asked.profile.profile_csv.is_none())
        .then(|| {
            Ok(SideOutput::note(
                "note: --profile: the CSV printed holds the report's rows; `--profile-csv FILE` \
                 writes the profile's rows into FILE"
                    .to_owned(),
            ))
        })
}

/// `--profile-csv FILE`: the profile's rows, the header alone without profiled launches.
fn rows(
    profile: Option<&ProfileReport>,
    request: &SideRequest,
) -> Option<Result<SideOutput, SideError>> {
    let path = request.features.profile.profile_csv.as_ref()?;
    let profile = profile?;
    let note = if profile.cells.is_empty() {
        format!(
            "profile: no profiled launches in these results (run with `pretouch run --profile`): {} holds the header only",
            path.display()
        )
    } else {
        format!("profile: {}", path.display())
    };
    Some(Ok(SideOutput::file(
        path,
        profile::csv(profile).into_bytes(),
        note,
    )))
}
