import CoachModels
import CoachNN
import CoachRandom
import Foundation

/// Standardised features and labels of the training and validation rows.
struct HeadTrainingData {
    var training: Tensor
    var trainingLabels: [Int]
    var validation: Tensor?
    var validationLabels: [Int]
    var classCount: Int
    /// For each training row, the image it is a view of (rows of one image share a fold).
    var trainingGroups: [Int]
    /// For each training row, whether it is the image's original (unaugmented) view.
    var trainingIsOriginal: [Bool]
}

/// The outcome of fitting a head: its layers on the (standardised, for the MLP) features, the history, and
/// the iteration whose weights were kept.
struct HeadFit {
    var layers: [ImageClassifierHead.Layer]
    var history: [IterationSummary]
    var bestIteration: Int?
    var stoppedEarly: Bool
}

/// Loss and accuracy of logits against labels.
func lossAndAccuracy(logits: Tensor, labels: [Int]) -> (loss: Double, accuracy: Double) {
    guard !labels.isEmpty else { return (0, 0) }
    let logProbabilities = logits.logSoftmax(axis: -1)
    let classes = logits.shape[1]
    var loss = 0.0, correct = 0
    let predictions = logits.argmax(axis: 1)
    for (row, label) in labels.enumerated() {
        loss -= Double(logProbabilities.scalars[row * classes + label])
        if predictions[row] == label { correct += 1 }
    }
    return (loss / Double(labels.count), Double(correct) / Double(labels.count))
}

/// Fits the logistic head by L-BFGS to convergence (at most `effectiveMaximumIterations` steps)
/// with the configured L2 penalty, or the one `chooseL2Penalty` picks. The validation images are
/// only measured (the optimum of a convex problem needs no early stopping).
func fitLogisticHead(_ data: HeadTrainingData, configuration: ImageClassifierTrainingConfiguration,
                     communicator: Communicator = .single, observer: TrainingObserver?) throws -> (fit: HeadFit, penalty: Double) {
    let penalty = try configuration.l2Penalty
        ?? chooseL2Penalty(data, configuration: configuration, communicator: communicator, observer: observer)
    let regression = SoftmaxRegression(l2Penalty: penalty)
    var history: [IterationSummary] = []
    let total = configuration.effectiveMaximumIterations
    let fit = regression.fit(features: data.training, labels: data.trainingLabels, classCount: data.classCount,
                             maximumIterations: total) { iteration, parameters, loss in
        var summary = IterationSummary(iteration: iteration, totalIterations: total, trainingLoss: loss,
                                       trainingAccuracy: lossAndAccuracy(logits: parameters.logits(data.training),
                                                                         labels: data.trainingLabels).accuracy)
        if let validation = data.validation {
            let result = lossAndAccuracy(logits: parameters.logits(validation), labels: data.validationLabels)
            summary.validationLoss = result.loss
            summary.validationAccuracy = result.accuracy
        }
        history.append(summary)
        if iteration == 1 || iteration % 25 == 0 { observer?(.iteration(summary)) }   // a line now and then, not per step
        return true
    }
    if let last = history.last, last.iteration != 1 && last.iteration % 25 != 0 { observer?(.iteration(last)) }
    if fit.termination == .converged { observer?(.note("the logistic regression converged after \(history.count) iterations")) }
    let layers = [ImageClassifierHead.Layer(weight: fit.parameters.weight, bias: fit.parameters.bias)]
    return (HeadFit(layers: layers, history: history, bestIteration: nil, stoppedEarly: false), penalty)
}

/// The L2 penalty (of `ImageClassifierTrainingConfiguration.l2PenaltyCandidates`) with the lowest
/// held-out log loss in a cross-validation over the training images: folds of whole images (an
/// image's augmented views stay with it), scored on the held-out images' original views whose
/// class the fold's other images show (a class the fit never saw can only be guessed, and the
/// flatter the guess the lower its loss: with one or two images per class those held-out images
/// would push the choice to the largest penalty); each fold fits the penalties from largest to
/// smallest, each starting from the previous weights. With nothing to score (one image per
/// class), `fallbackL2Penalty`.
/// The folds are independent: a job's ranks fit a share of them each, side by side on the cores
/// (one core each: the products are too small to split well), and the losses are summed in fold
/// order, so any number of ranks and threads picks the same penalty from the same sums.
func chooseL2Penalty(_ data: HeadTrainingData, configuration: ImageClassifierTrainingConfiguration,
                     communicator: Communicator = .single, observer: TrainingObserver?) throws -> Double {
    let candidates = ImageClassifierTrainingConfiguration.l2PenaltyCandidates
    var images = Array(Set(data.trainingGroups)).sorted()
    let folds = min(configuration.crossValidationFolds, images.count)
    guard folds >= 2 else { return ImageClassifierTrainingConfiguration.fallbackL2Penalty }
    var generator = SeededGenerator(seed: configuration.seed ^ 0x6C32_5045_4E41_4C54)
    generator.shuffle(&images)
    var assignment: [Int: Int] = [:]
    for (position, image) in images.enumerated() { assignment[image] = position % folds }
    let foldOf = assignment
    // Each fold's held-out loss per candidate (none for a fold with nothing to score).
    func foldLosses(_ fold: Int) -> [Double] {
        let rows = data.trainingGroups.indices
        let inFold = rows.map { foldOf[data.trainingGroups[$0]] == fold }
        let trainedClasses = Set(rows.filter { !inFold[$0] }.map { data.trainingLabels[$0] })
        let held = rows.filter { inFold[$0] && data.trainingIsOriginal[$0] && trainedClasses.contains(data.trainingLabels[$0]) }
        guard !held.isEmpty, inFold.contains(false) else { return [] }
        var foldLosses = [Double](repeating: 0, count: candidates.count)
        // The fold's rows get weight 0 rather than a copy of the other rows: the weighted objective
        // is the same (it is divided by the total weight), and the features are held once.
        let weights = inFold.map { $0 ? Float(0) : 1 }
        var start: SoftmaxRegression.Parameters? = nil
        for (index, penalty) in candidates.enumerated() {
            let fit = SoftmaxRegression(l2Penalty: penalty).fit(
                features: data.training, labels: data.trainingLabels, classCount: data.classCount,
                maximumIterations: min(configuration.effectiveMaximumIterations,
                                       ImageClassifierTrainingConfiguration.crossValidationIterations),
                sampleWeights: weights, start: start)
            start = fit.parameters
            foldLosses[index] = lossAndAccuracy(logits: fit.parameters.logits(data.training).rows(held),
                                                labels: held.map { data.trainingLabels[$0] }).loss / Double(folds)
        }
        return foldLosses
    }
    let perFold = try communicator.gatherShares(count: folds) { share in
        ComputeThreads.concurrentMap(share.count) { foldLosses(share.lowerBound + $0) }
    }
    guard perFold.contains(where: { !$0.isEmpty }) else {
        let penalty = ImageClassifierTrainingConfiguration.fallbackL2Penalty
        observer?(.note("L2 penalty \(penalty): cross-validation has nothing to judge by (no held-out image's class is among its fold's other training images)"))
        return penalty
    }
    var losses = [Double](repeating: 0, count: candidates.count)
    for foldLoss in perFold where !foldLoss.isEmpty {
        for index in candidates.indices { losses[index] += foldLoss[index] }
    }
    var best = 0
    for index in candidates.indices where losses[index] < losses[best] - 1e-9 { best = index }
    let table = zip(candidates, losses).map { "\($0): \(String(format: "%.4f", $1))" }.joined(separator: ", ")
    observer?(.note("L2 penalty \(candidates[best]) chosen by \(folds)-fold cross-validation over the training images (held-out log loss \(table))"))
    return candidates[best]
}

/// The MLP head: standardised features → dense (ReLU, dropout) → dense to classes.
final class MLPHeadNetwork: Module {
    let hidden: Linear
    let output: Linear
    let dropout: Dropout

    init(inputs: Int, hiddenUnits: Int, classes: Int, dropout rate: Float, generator: inout SeededGenerator) {
        hidden = Linear(inputSize: inputs, outputSize: hiddenUnits, initializer: .heNormal, generator: &generator)
        output = Linear(inputSize: hiddenUnits, outputSize: classes, generator: &generator)
        dropout = Dropout(rate: rate)
    }

    var children: [(String, Module)] { [("hidden", hidden), ("output", output)] }

    func callAsFunction(_ x: Variable) -> Variable { output(dropout(hidden(x).relu())) }

    /// The layers as plain tensors.
    var layers: [ImageClassifierHead.Layer] {
        [ImageClassifierHead.Layer(weight: hidden.weight.value, bias: hidden.bias!.value),
         ImageClassifierHead.Layer(weight: output.weight.value, bias: output.bias!.value)]
    }
}

/// Fits the MLP head with AdamW on shuffled mini-batches (one iteration = one epoch), with
/// early stopping on the validation loss; the best epoch's weights are kept.
func fitMLPHead(_ data: HeadTrainingData, configuration: ImageClassifierTrainingConfiguration,
                observer: TrainingObserver?) -> HeadFit {
    var generator = SeededGenerator(seed: configuration.seed)
    var initGenerator = generator.fork()
    let network = MLPHeadNetwork(inputs: data.training.shape[1], hiddenUnits: configuration.hiddenUnits,
                                 classes: data.classCount, dropout: Float(configuration.dropout), generator: &initGenerator)
    let optimizer = Adam.adamW(learningRate: Float(configuration.learningRate), weightDecay: 1e-2)
    let total = configuration.effectiveMaximumIterations
    let rowCount = data.trainingLabels.count
    let stepsPerEpoch = (rowCount + configuration.batchSize - 1) / configuration.batchSize
    let schedule = CosineSchedule(base: Float(configuration.learningRate), totalSteps: max(1, total * stepsPerEpoch),
                                  minimum: Float(configuration.learningRate) * 0.01)
    var stopping = EarlyStopping(patience: configuration.earlyStoppingPatience, minimumDelta: 1e-4, higherIsBetter: false)
    var best: [ImageClassifierHead.Layer]?
    var history: [IterationSummary] = []
    var step = 0
    var stoppedEarly = false
    func evaluate(_ features: Tensor) -> Tensor {
        let tape = Tape(mode: .inference, recordsGradients: false)
        return network(tape.constant(features)).value
    }
    for epoch in 1...total {
        var order = Array(0..<rowCount)
        generator.shuffle(&order)
        var lossSum = 0.0
        for start in stride(from: 0, to: rowCount, by: configuration.batchSize) {
            let rows = order[start..<min(rowCount, start + configuration.batchSize)]
            let batch = data.training.rows(Array(rows))
            optimizer.learningRate = schedule.rate(at: step)
            let tape = Tape(mode: .training, generator: generator.fork())
            let loss = Loss.softmaxCrossEntropy(logits: network(tape.constant(batch)), labels: rows.map { data.trainingLabels[$0] })
            optimizer.update(network.namedParameters, gradients: tape.gradients(of: loss))
            lossSum += Double(loss.value.scalar) * Double(rows.count)
            step += 1
        }
        let trainingAccuracy = lossAndAccuracy(logits: evaluate(data.training), labels: data.trainingLabels).accuracy
        var summary = IterationSummary(iteration: epoch, totalIterations: total, trainingLoss: lossSum / Double(max(rowCount, 1)),
                                       trainingAccuracy: trainingAccuracy, learningRate: Double(optimizer.learningRate))
        if let validation = data.validation {
            let result = lossAndAccuracy(logits: evaluate(validation), labels: data.validationLabels)
            summary.validationLoss = result.loss
            summary.validationAccuracy = result.accuracy
            summary.isBest = stopping.record(result.loss, iteration: epoch)
            if summary.isBest { best = network.layers }
        }
        history.append(summary)
        observer?(.iteration(summary))
        if data.validation != nil && stopping.shouldStop && epoch < total {
            stoppedEarly = true
            break
        }
    }
    return HeadFit(layers: best ?? network.layers, history: history,
                   bestIteration: data.validation == nil ? nil : stopping.bestIteration, stoppedEarly: stoppedEarly)
}
