from pipeline.reward.cli import main

main()
