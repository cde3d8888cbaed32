       IDENTIFICATION DIVISION.
       PROGRAM-ID. GC.
      * 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes).
       DATA DIVISION.
       WORKING-STORAGE SECTION.
       01 I PIC 9(4).
       01 BLK PIC X(1048576) BASED.
       PROCEDURE DIVISION.
           PERFORM VARYING I FROM 1 BY 1 UNTIL I > 1024
               ALLOCATE BLK
               MOVE ALL "X" TO BLK
               FREE ADDRESS OF BLK
           END-PERFORM.
           DISPLAY "done 1048576".
           STOP RUN.
