/// CoachRuntime is what apps link: it loads Coach model files and runs them. It builds on
/// CoachModels (never on CoachTraining), and re-exports it so apps need one import.
@_exported import CoachModels
