from unsentinel.cli import main

main()
