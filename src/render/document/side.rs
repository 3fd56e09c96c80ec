//! Stage 6, rendering: what `pretouch report` writes beside the report, as bytes. The
//! flame graphs (`--flamegraph DIR`), the profile's rows (`--profile-csv FILE`), the
//! probed launches' rows and histograms (`--probe-csv FILE`, `--probe-svg DIR`) and the
//! plot (`--plot FILE`) are drawn here from the document, each with the line the
//! command prints once its files are written; the command only writes them.

use std::path::PathBuf;

use crate::analyze::document::Document;
use crate::features::probe::plot as probe_plot;
use crate::features::probe::render as probe;
use crate::features::profile::flamegraph;
use crate::features::profile::render as profile;
use crate::render::common::Format;
use crate::render::plot;

/// The files asked for beside the report, and how the report itself is printed (its
/// format and `--profile` decide which notes say where the rows it leaves out go).
#[derive(Debug, Clone)]
pub struct SideRequest {
    /// The report's format (`--format`).
    pub format: Format,
    /// The report shows the profile (`--profile`).
    pub profile: bool,
    /// `--flamegraph DIR`.
    pub flamegraph: Option<PathBuf>,
    /// `--profile-csv FILE`.
    pub profile_csv: Option<PathBuf>,
    /// `--probe-csv FILE`.
    pub probe_csv: Option<PathBuf>,
    /// `--probe-svg DIR`.
    pub probe_svg: Option<PathBuf>,
    /// `--plot FILE`.
    pub plot: Option<PathBuf>,
}

/// One output beside the report: its files, to be written into `dir` (created first)
/// when it names one, then `note`, printed on stderr. An output without files is a note
/// alone: it says where the rows the printed CSV leaves out go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideOutput {
    /// The folder the files go into (`--flamegraph`, `--probe-svg`).
    pub dir: Option<PathBuf>,
    pub files: Vec<SideFile>,
    /// The line printed once the files are written.
    pub note: String,
    /// What a failure to write the files says, before the system's error.
    pub writing: String,
}

/// One file beside the report, drawn and ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Why an output beside the report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    /// `--flamegraph` of results whose profiled launches hold no sample.
    #[error(
        "--flamegraph: no profiled launches with samples in these results\n  fix: \
         record some with `pretouch run --profile`"
    )]
    NoSamples,
    /// `--probe-csv` or `--probe-svg` (the flag) of results without a probe record.
    #[error(
        "{0}: no probed launches in these results\n  fix: record some with `pretouch run --probe`"
    )]
    NoProbes(&'static str),
    /// A picture could not be drawn.
    #[error("{context}")]
    Drawing {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl SideError {
    /// Whether the results, not the machine, are at fault: the user asked for what they
    /// do not hold.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, SideError::NoSamples | SideError::NoProbes(_))
    }
}

/// The outputs `request` asks for beside the report of `doc`, in the order they are
/// written: flame graphs, the profile's rows, the probes' rows and histograms, the plot,
/// with the notes in their place. The list ends at the first output that cannot be made,
/// so that those before it are still written.
pub fn side_files(doc: &Document, request: &SideRequest) -> Vec<Result<SideOutput, SideError>> {
    let steps: [fn(&Document, &SideRequest) -> Step; 6] = [
        flame_graphs,
        profile_note,
        profile_rows,
        probe_rows,
        probe_pictures,
        plot_picture,
    ];
    let mut out = Vec::new();
    for step in steps {
        let Some(made) = step(doc, request) else {
            continue;
        };
        let failed = made.is_err();
        out.push(made);
        if failed {
            break;
        }
    }
    out
}

/// What one output's step makes: nothing when it is not asked for (or the document
/// holds nothing it would draw from, as `--flamegraph` of `report --calibrate`).
type Step = Option<Result<SideOutput, SideError>>;

fn note(note: String) -> SideOutput {
    SideOutput {
        dir: None,
        files: Vec::new(),
        note,
        writing: String::new(),
    }
}

/// `--flamegraph DIR`: an SVG per cell and label, two differential ones per cell.
fn flame_graphs(doc: &Document, request: &SideRequest) -> Step {
    let dir = request.flamegraph.as_ref()?;
    let profile = doc.launches.as_ref()?.profile.as_ref()?;
    if profile.cells.iter().all(|c| c.stacks.is_empty()) {
        return Some(Err(SideError::NoSamples));
    }
    let writing = format!("writing flame graphs into `{}`", dir.display());
    let graphs = match flamegraph::graphs(profile, true) {
        Ok(g) => g,
        Err(e) => {
            return Some(Err(SideError::Drawing {
                context: writing,
                source: e.into(),
            }));
        }
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
fn profile_note(_: &Document, request: &SideRequest) -> Step {
    (request.profile && request.format == Format::Csv && request.profile_csv.is_none()).then(|| {
        Ok(note(
            "note: --profile: the CSV printed holds the report's rows; `--profile-csv FILE` \
                 writes the profile's rows into FILE"
                .to_owned(),
        ))
    })
}

/// `--profile-csv FILE`: the profile's rows, the header alone without profiled launches.
fn profile_rows(doc: &Document, request: &SideRequest) -> Step {
    let path = request.profile_csv.as_ref()?;
    let profile = doc.launches.as_ref()?.profile.as_ref()?;
    let note = if profile.cells.is_empty() {
        format!(
            "profile: no profiled launches in these results (run with `pretouch run --profile`): {} holds the header only",
            path.display()
        )
    } else {
        format!("profile: {}", path.display())
    };
    Some(Ok(SideOutput {
        dir: None,
        files: vec![SideFile {
            path: path.clone(),
            bytes: profile::csv(profile).into_bytes(),
        }],
        note,
        writing: format!("writing `{}`", path.display()),
    }))
}

/// `--probe-csv FILE`: the probed launches' rows. Without it, the printed CSV says
/// where they go when there are some.
fn probe_rows(doc: &Document, request: &SideRequest) -> Step {
    let probes = doc.launches.as_ref().and_then(|l| l.probes.as_ref());
    let Some(path) = &request.probe_csv else {
        return (probes.is_some() && request.format == Format::Csv).then(|| {
            Ok(note(
                "note: the CSV printed holds the report's rows; `--probe-csv FILE` writes the \
                 probed launches' rows into FILE"
                    .to_owned(),
            ))
        });
    };
    let Some(probes) = probes else {
        return Some(Err(SideError::NoProbes("--probe-csv")));
    };
    Some(Ok(SideOutput {
        dir: None,
        files: vec![SideFile {
            path: path.clone(),
            bytes: probe::csv(probes).into_bytes(),
        }],
        note: format!("probes: {}", path.display()),
        writing: format!("writing `{}`", path.display()),
    }))
}

/// `--probe-svg DIR`: an SVG per probed cell, the labels' fault latency overlaid.
fn probe_pictures(doc: &Document, request: &SideRequest) -> Step {
    let dir = request.probe_svg.as_ref()?;
    let Some(probes) = doc.launches.as_ref().and_then(|l| l.probes.as_ref()) else {
        return Some(Err(SideError::NoProbes("--probe-svg")));
    };
    let writing = format!("drawing into `{}`", dir.display());
    let mut files = Vec::new();
    for cell in probes.cell_keys() {
        match probe_plot::svg(probes, cell) {
            Ok(svg) => files.push(SideFile {
                path: dir.join(probe_plot::file_name(cell)),
                bytes: svg.into_bytes(),
            }),
            Err(e) => {
                return Some(Err(SideError::Drawing {
                    context: writing,
                    source: e.into(),
                }));
            }
        }
    }
    Some(Ok(SideOutput {
        dir: Some(dir.clone()),
        note: format!("fault latency: {} files in {}", files.len(), dir.display()),
        files,
        writing,
    }))
}

/// `--plot FILE`: every round's cost per cell and label.
fn plot_picture(doc: &Document, request: &SideRequest) -> Step {
    let path = request.plot.as_ref()?;
    let launches = doc.launches.as_ref()?;
    let writing = format!("drawing `{}`", path.display());
    Some(match plot::svg(&launches.comparison) {
        Ok(svg) => Ok(SideOutput {
            dir: None,
            files: vec![SideFile {
                path: path.clone(),
                bytes: svg.into_bytes(),
            }],
            note: format!("plot: {}", path.display()),
            writing,
        }),
        Err(e) => Err(SideError::Drawing {
            context: writing,
            source: e.into(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::analyze::document;
    use crate::fixtures::{file, g1_and_parallel, host, rounds};
    use crate::store::Results;

    /// Two labels of two cells each, without profile or probe records.
    fn doc(options: &Options) -> Document {
        let base = rounds(50.0, 420.0, false);
        let new = rounds(50.0, 380.0, false);
        let files = vec![
            file(
                "base",
                "2026-11-30T08:00:00Z",
                host("vm"),
                &g1_and_parallel(&base, &base),
            ),
            file(
                "new",
                "2026-11-30T08:10:00Z",
                host("vm"),
                &g1_and_parallel(&new, &base),
            ),
        ];
        let results = Results {
            files,
            ..Default::default()
        };
        document::build(results, options).unwrap()
    }

    fn request(format: Format) -> SideRequest {
        SideRequest {
            format,
            profile: false,
            flamegraph: None,
            profile_csv: None,
            probe_csv: None,
            probe_svg: None,
            plot: None,
        }
    }

    #[test]
    fn nothing_asked_nothing_made() {
        assert!(side_files(&doc(&Options::default()), &request(Format::Text)).is_empty());
    }

    #[test]
    fn outputs_come_in_order_with_their_notes() {
        let options = Options {
            profile: true,
            show_profile: true,
            ..Options::default()
        };
        let made = side_files(
            &doc(&options),
            &SideRequest {
                profile: true,
                profile_csv: Some("p.csv".into()),
                plot: Some("plot.svg".into()),
                ..request(Format::Csv)
            },
        );
        let made: Vec<SideOutput> = made.into_iter().map(Result::unwrap).collect();
        let notes: Vec<&str> = made.iter().map(|m| m.note.as_str()).collect();
        assert_eq!(
            notes,
            [
                "profile: no profiled launches in these results (run with `pretouch run --profile`): p.csv holds the header only",
                "plot: plot.svg",
            ]
        );
        assert_eq!(made[0].files[0].path, PathBuf::from("p.csv"));
        assert!(made[0].files[0].bytes.starts_with(b"section,label,"));
        assert_eq!(made[1].writing, "drawing `plot.svg`");
        assert!(made[1].files[0].bytes.starts_with(b"<svg"));
        // Without --profile-csv, the printed CSV says where the profile's rows go.
        let made = side_files(
            &doc(&options),
            &SideRequest {
                profile: true,
                ..request(Format::Csv)
            },
        );
        assert_eq!(made.len(), 1);
        let note = made[0].as_ref().unwrap();
        assert!(note.files.is_empty() && note.note.contains("--profile-csv FILE"));
    }

    #[test]
    fn the_first_output_that_cannot_be_made_ends_the_list() {
        let made = side_files(
            &doc(&Options::default()),
            &SideRequest {
                probe_csv: Some("probes.csv".into()),
                probe_svg: Some("svg".into()),
                plot: Some("plot.svg".into()),
                ..request(Format::Text)
            },
        );
        assert_eq!(made.len(), 1);
        let e = made.into_iter().next().unwrap().unwrap_err();
        assert!(e.is_bad_input());
        assert_eq!(
            e.to_string(),
            "--probe-csv: no probed launches in these results\n  fix: record some with `pretouch run --probe`"
        );
        // Without a profile analyzed, --flamegraph draws nothing and says nothing, as under
        // `report --calibrate`.
        let made = side_files(
            &doc(&Options::default()),
            &SideRequest {
                flamegraph: Some("fg".into()),
                ..request(Format::Text)
            },
        );
        assert!(made.is_empty());
    }
}
