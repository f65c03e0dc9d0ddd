import CoachNN
