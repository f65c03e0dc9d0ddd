/// CoachModels hands out tensors and model files; re-export the tensor layer with it.
@_exported import CoachNN
